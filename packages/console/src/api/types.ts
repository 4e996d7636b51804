// The views of the operator API, generated from docs/openapi.json (`npm run api-types -w
// packages/console` writes schema.d.ts), so the console and the server cannot disagree on a
// field, the live events' bodies included.
import type { components } from "./schema.js";

type Schemas = components["schemas"];

export type Chatbot = Schemas["AdminChatbot"];
export type Provider = Chatbot["provider"];
export type Conversation = Schemas["Conversation"];
export type ConversationWithMessages = Schemas["ConversationWithMessages"];
export type Message = Schemas["Message"];
/** A document a model reply's context came from. */
export type MessageSource = Schemas["MessageSource"];
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

/** An event's body, as webhooks deliver it and the live stream's `data:` lines carry it: one variant per type. */
export type EventBody = Schemas["EventBody"];
/** One event of the SSE stream (docs/design.md §5, §10): its id, and its body's type and data. */
export type ParleyEvent = EventBody extends infer Body ? (Body extends EventBody ? { id: string; type: Body["type"]; data: Body["data"] } : never) : never;
