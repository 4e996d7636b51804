import type { FeedbackRating, ApiKey, AttentionReason, Chatbot, Conversation, ConversationSummary, DeliveryStatus, EventType, Message, MessageAuthor, MessageRole, MessageSource, OutboxEvent, Plan, Provider, User, WebhookDelivery, WebhookSubscription } from "@parley/core";
import { widgetSettingsFrom, type WidgetSettings } from "@parley/core";
import { fromText } from "./postgres-text.js";
import { apiKeyFromRow as keyFromRow, type ApiKeyRow } from "@parley/core/storage-rows";

// Rows as `pg` returns them (snake_case columns; bigints read as numbers by the pool's type
// parser, postgres-database.ts) and their mappers to the core's domain types. Text a user wrote
// goes through toText/fromText (postgres-text.ts): TEXT cannot hold NUL.

export type { ApiKeyRow };
export interface PlanRow { name: string; monthly_messages: number }
export interface UserRow { id: string; email: string; plan_name: string; monthly_messages_override: number | null; created_at: number }
export interface ChatbotRow {
  id: string; owner_id: string; name: string; slug: string; provider: string; model: string;
  system_prompt: string; fallback_message: string; is_active: boolean; created_at: number; updated_at: number; deleted_at: number | null;
  /** JSON object of the widget settings, read under the defaults. */
  widget: string; widget_secret_nonce: string | null;
}
export interface ConversationRow {
  id: string; chatbot_id: string; session_id: string; human_takeover: boolean; needs_attention: boolean; attention_reason: string | null; message_count: number; created_at: number; updated_at: number;
}
/** A conversation row with its latest message's columns (null when it has none), as lists read it. */
export interface ConversationSummaryRow extends ConversationRow {
  last_id: string | null; last_role: string | null; last_author: string | null; last_content: string | null; last_agent_name: string | null; last_created_at: number | null; last_sources: string | null;
  last_feedback_rating: string | null; last_feedback_comment: string | null; last_feedback_at: number | null;
}
/** `sources` is the JSON array of a reply's sources. */
export interface MessageRow {
  id: string; conversation_id: string; role: string; author: string; content: string; agent_name: string | null; created_at: number; sources: string;
  /** The rating columns: read, never written by an insert (null until rated). */
  feedback_rating?: string | null; feedback_comment?: string | null; feedback_at?: number | null;
}
export interface OutboxEventRow { id: string; type: string; user_id: string; chatbot_id: string; data: string; created_at: number }
export interface WebhookSubscriptionRow { id: string; user_id: string; url: string; chatbot_id: string | null; event_types: string; signing_key_id: string; public_only: boolean; created_at: number }
export interface WebhookDeliveryRow {
  id: string; subscription_id: string; user_id: string; event_id: string; event_type: string; status: string; attempts: number;
  next_attempt_at: number | null; last_attempt_at: number | null; last_response_status: number | null;
  last_error: string | null; created_at: number; delivered_at: number | null;
}

export const CHATBOT_COLUMNS = "id, owner_id, name, slug, provider, model, system_prompt, fallback_message, is_active, created_at, updated_at, deleted_at, widget, widget_secret_nonce";
export const MESSAGE_COLUMNS = "id, conversation_id, role, author, content, agent_name, created_at, sources";
/** What a message read selects: the written columns plus its rating (null until rated). */
export const MESSAGE_READ_COLUMNS = `${MESSAGE_COLUMNS}, feedback_rating, feedback_comment, feedback_at`;
export const CONVERSATION_COLUMNS = "id, chatbot_id, session_id, human_takeover, needs_attention, attention_reason, message_count, created_at, updated_at";
export const OUTBOX_COLUMNS = "id, type, user_id, chatbot_id, data, created_at";
export const USER_COLUMNS = "id, email, plan_name, monthly_messages_override, created_at";
export const API_KEY_COLUMNS = "id, user_id, name, key_hash, scope, created_at, revoked_at, last_used_at";
export const SUBSCRIPTION_COLUMNS = "id, user_id, url, chatbot_id, event_types, signing_key_id, public_only, created_at";
export const DELIVERY_COLUMNS =
  "id, subscription_id, user_id, event_id, event_type, status, attempts, next_attempt_at, last_attempt_at, last_response_status, last_error, created_at, delivered_at";

export const planFromRow = (row: PlanRow): Plan => ({ name: row.name, monthlyMessages: row.monthly_messages });

/** The shared API key codec, its name read back from NUL-free text. */
export const apiKeyFromRow = (row: ApiKeyRow): ApiKey => ({ ...keyFromRow(row), name: fromText(row.name) });

export const userFromRow = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  planName: row.plan_name,
  monthlyMessagesOverride: row.monthly_messages_override,
  createdAt: row.created_at,
});

export const chatbotFromRow = (row: ChatbotRow): Chatbot => ({
  id: row.id,
  ownerId: row.owner_id,
  name: fromText(row.name),
  slug: row.slug,
  provider: row.provider as Provider,
  model: fromText(row.model),
  systemPrompt: fromText(row.system_prompt),
  fallbackMessage: fromText(row.fallback_message),
  isActive: row.is_active,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  widget: widgetSettingsFrom(JSON.parse(row.widget) as Partial<WidgetSettings>),
  widgetSecretNonce: row.widget_secret_nonce,
});

export const conversationFromRow = (row: ConversationRow): Conversation => ({
  id: row.id,
  chatbotId: row.chatbot_id,
  sessionId: fromText(row.session_id),
  humanTakeover: row.human_takeover,
  needsAttention: row.needs_attention,
  attentionReason: row.attention_reason as AttentionReason | null,
  messageCount: row.message_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const messageFromRow = (row: MessageRow): Message => ({
  id: row.id,
  conversationId: row.conversation_id,
  role: row.role as MessageRole,
  author: row.author as MessageAuthor,
  content: fromText(row.content),
  agentName: row.agent_name === null ? null : fromText(row.agent_name),
  createdAt: row.created_at,
  sources: JSON.parse(row.sources) as MessageSource[],
  feedback: row.feedback_rating ? { rating: row.feedback_rating as FeedbackRating, comment: row.feedback_comment == null ? null : fromText(row.feedback_comment), createdAt: row.feedback_at! } : null,
});

// The type and its data were written together from one OutboxEvent, so they still match.
export const outboxEventFromRow = (row: OutboxEventRow): OutboxEvent =>
  ({ id: row.id, type: row.type, userId: row.user_id, chatbotId: row.chatbot_id, data: JSON.parse(row.data) as unknown, createdAt: row.created_at }) as OutboxEvent;

export const webhookSubscriptionFromRow = (row: WebhookSubscriptionRow): WebhookSubscription => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  chatbotId: row.chatbot_id,
  eventTypes: JSON.parse(row.event_types) as EventType[],
  signingKeyId: row.signing_key_id,
  publicOnly: row.public_only,
  createdAt: row.created_at,
});

export const webhookDeliveryFromRow = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  subscriptionId: row.subscription_id,
  userId: row.user_id,
  eventId: row.event_id,
  eventType: row.event_type as EventType,
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  lastAttemptAt: row.last_attempt_at,
  lastResponseStatus: row.last_response_status,
  lastError: row.last_error,
  createdAt: row.created_at,
  deliveredAt: row.delivered_at,
});

export const conversationSummaryFromRow = (row: ConversationSummaryRow): ConversationSummary => ({
  ...conversationFromRow(row),
  lastMessage:
    row.last_id === null
      ? null
      : messageFromRow({ id: row.last_id, conversation_id: row.id, role: row.last_role!, author: row.last_author!, content: row.last_content!, agent_name: row.last_agent_name, created_at: row.last_created_at!, sources: row.last_sources!, feedback_rating: row.last_feedback_rating, feedback_comment: row.last_feedback_comment, feedback_at: row.last_feedback_at }),
});
