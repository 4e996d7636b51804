// The views of the operator API, generated from docs/openapi.json (`npm run api-types -w
// packages/console` writes schema.d.ts), so the console and the server cannot disagree on a
// field. Only the live events, which are not a JSON route, are written here.
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type Chatbot = Schemas["AdminChatbot"];
export type Provider = Chatbot["provider"];
export type Conversation = Schemas["Conversation"];
export type ConversationWithMessages = Schemas["ConversationWithMessages"];
export type Message = Schemas["Message"];
/** Who wrote a message: the visitor, the chatbot's model, or a human agent. */
export type Author = Message["author"];
export type KnowledgeDocument = Schemas["Document"];
export type Ingestion = Schemas["Ingestion"];
export type SearchHit = Schemas["SearchResult"]["data"][number];
export type ApiKey = Schemas["Key"];
export type Scope = ApiKey["scope"];
export type Webhook = Schemas["Webhook"];
export type Delivery = Schemas["Delivery"];
export type Usage = Schemas["Usage"];

/** One event of the SSE stream (docs/design.md §5, §10): `data` is the webhook body's data. */
export interface ParleyEvent {
  id: string;
  type: string;
  data: {
    conversation_id?: string;
    chatbot_id?: string;
    session_id?: string;
    message_id?: string;
    content?: string;
    author?: Author;
    role?: string;
    human_takeover?: boolean;
    created_at?: string;
    [field: string]: unknown;
  };
}
