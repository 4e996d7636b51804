// The rows the SQL adapters (SQLite and PostgreSQL) store alike, and their column lists: snake_case
// columns, times as integer microseconds, JSON as text. A boolean column reads as the engine
// gives it (PostgreSQL a boolean, SQLite 0 or 1) and is written as its dialect binds it.

/** A boolean column: PostgreSQL's boolean, SQLite's 0 or 1. */
export type Flag = boolean | number;

export interface PlanRow {
  name: string;
  monthly_messages: number;
}

export interface UserRow {
  id: string;
  email: string;
  plan_name: string;
  monthly_messages_override: number | null;
  created_at: number;
}

/** An API key's row: its hash, never the key. */
export interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_hash: string;
  scope: string;
  created_at: number;
  revoked_at: number | null;
  last_used_at: number | null;
}

export interface ChatbotRow<F extends Flag = Flag> {
  id: string;
  owner_id: string;
  name: string;
  slug: string;
  provider: string;
  model: string;
  system_prompt: string;
  fallback_message: string;
  is_active: F;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** JSON object of the widget settings, read under the defaults. */
  widget: string;
  widget_secret_nonce: string | null;
}

export interface ConversationRow<F extends Flag = Flag> {
  id: string;
  chatbot_id: string;
  session_id: string;
  human_takeover: F;
  needs_attention: F;
  attention_reason: string | null;
  message_count: number;
  created_at: number;
  updated_at: number;
}

/** A conversation row with its latest message's columns (null when it has none), as lists read it. */
export interface ConversationSummaryRow extends ConversationRow {
  last_id: string | null;
  last_role: string | null;
  last_author: string | null;
  last_content: string | null;
  last_agent_name: string | null;
  last_created_at: number | null;
  last_sources: string | null;
  last_feedback_rating: string | null;
  last_feedback_comment: string | null;
  last_feedback_at: number | null;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: string;
  author: string;
  content: string;
  agent_name: string | null;
  created_at: number;
  /** JSON array of the reply's sources. */
  sources: string;
  /** The rating columns: read, never written by an insert (null until rated). */
  feedback_rating?: string | null;
  feedback_comment?: string | null;
  feedback_at?: number | null;
}

export interface OutboxEventRow {
  id: string;
  type: string;
  user_id: string;
  chatbot_id: string;
  data: string;
  created_at: number;
}

export interface WebhookSubscriptionRow {
  id: string;
  user_id: string;
  url: string;
  chatbot_id: string | null;
  event_types: string;
  signing_key_id: string;
  public_only: Flag;
  created_at: number;
}

export interface WebhookDeliveryRow {
  id: string;
  subscription_id: string;
  user_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  last_attempt_at: number | null;
  last_response_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

export const USER_COLUMNS = "id, email, plan_name, monthly_messages_override, created_at";
export const API_KEY_COLUMNS = "id, user_id, name, key_hash, scope, created_at, revoked_at, last_used_at";
export const CHATBOT_COLUMNS =
  "id, owner_id, name, slug, provider, model, system_prompt, fallback_message, is_active, created_at, updated_at, deleted_at, widget, widget_secret_nonce";
export const CONVERSATION_COLUMNS = "id, chatbot_id, session_id, human_takeover, needs_attention, attention_reason, message_count, created_at, updated_at";
/** What a message insert writes. */
export const MESSAGE_COLUMNS = "id, conversation_id, role, author, content, agent_name, created_at, sources";
/** What a message read selects: the written columns plus its rating (null until rated). */
export const MESSAGE_READ_COLUMNS = `${MESSAGE_COLUMNS}, feedback_rating, feedback_comment, feedback_at`;
export const OUTBOX_COLUMNS = "id, type, user_id, chatbot_id, data, created_at";
export const SUBSCRIPTION_COLUMNS = "id, user_id, url, chatbot_id, event_types, signing_key_id, public_only, created_at";
export const DELIVERY_COLUMNS =
  "id, subscription_id, user_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at, last_response_status, last_error, created_at, delivered_at";

/** A row's values in the order of a column list, for positional parameters ($1, $2, …). */
export const columnValues = (row: object, columns: string): unknown[] =>
  columns.split(", ").map((column) => (row as Record<string, unknown>)[column]);
