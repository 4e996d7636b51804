// The views of the operator API, field for field as docs/design.md §9 lists them. Kept by hand
// until docs/openapi.json describes the admin routes; then generated from it (CONVENTIONS).

/** A provider of docs/design.md §4. */
export type Provider = "openai" | "anthropic" | "ollama";

/** Every list answer: newest first, with an opaque cursor to the next page. */
export interface List<T> {
  data: T[];
  next_cursor: string | null;
}

/** A chatbot as the admin routes show it: the detail form plus model, updated_at, documents, chunks. */
export interface Chatbot {
  id: string;
  name: string;
  slug: string;
  provider: Provider;
  model: string;
  is_active: boolean;
  system_prompt: string;
  fallback_message: string;
  documents: number;
  chunks: number;
  created_at: string;
  updated_at: string;
}

/** Who wrote a message: the visitor, the chatbot's model, or a human agent. */
export type Author = "user" | "model" | "agent";

export interface Message {
  id: string;
  author: Author;
  content: string;
  created_at: string;
}

export interface Conversation {
  id: string;
  chatbot_id: string;
  session_id: string;
  human_takeover: boolean;
  needs_attention: boolean;
  message_count: number;
  last_message: { author: Author; content: string; created_at: string } | null;
  created_at: string;
  updated_at: string;
}

export interface ConversationWithMessages extends Conversation {
  messages: Message[];
}

export interface KnowledgeDocument {
  id: string;
  title: string;
  source: string;
  type: string;
  chunks: number;
  bytes: number;
  created_at: string;
  updated_at: string;
}

export type IngestionStatus = "queued" | "running" | "succeeded" | "failed";

export interface Ingestion {
  id: string;
  chatbot_id: string;
  status: IngestionStatus;
  documents_total: number;
  documents_done: number;
  chunks: number;
  errors: { source: string; detail: string }[];
  created_at: string;
  finished_at: string | null;
}

export interface SearchHit {
  document_id: string;
  title: string;
  source: string;
  text: string;
  score: number;
  keyword_rank: number | null;
  vector_rank: number | null;
}

export type Scope = "chat" | "admin";

export interface ApiKey {
  id: string;
  name: string;
  scope: Scope;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** Only in the answer that creates the key. */
  key?: string;
}

export interface Webhook {
  id: string;
  url: string;
  chatbot_id: string | null;
  events: string[] | null;
  created_at: string;
  /** Only in the answer that creates the subscription. */
  secret?: string;
}

export interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  last_status: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface Usage {
  plan: string;
  limit: number;
  used: number;
  remaining: number;
  month: string;
  resets_at: string;
  by_chatbot: { chatbot_id: string; messages: number }[];
  by_day: { date: string; messages: number }[];
}

/** One event of the SSE stream (docs/design.md §5, §10): `data` is the webhook body. */
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
    created_at?: string;
    [field: string]: unknown;
  };
}
