import { widgetSettingsFrom } from "@parley/core";
import type {
  FeedbackRating,
  WidgetSettings,
  AttentionReason,
  Chatbot,
  Conversation,
  ConversationSummary,
  Message,
  MessageAuthor,
  MessageRole,
  MessageSource,
  OutboxEvent,
  Plan,
  Provider,
  User,
} from "@parley/core";

// Rows as better-sqlite3 returns them (snake_case columns, 0/1 booleans, JSON as text), and
// the mappers between them and the core's domain types. SQLite cannot bind booleans, so every
// boolean goes in as 0/1 through `toFlag`.

// API keys map through the codec both SQL adapters share.
export { apiKeyFromRow, type ApiKeyRow } from "@parley/core/storage-rows";

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

export interface ChatbotRow {
  id: string;
  owner_id: string;
  name: string;
  slug: string;
  provider: string;
  model: string;
  system_prompt: string;
  fallback_message: string;
  is_active: number;
  created_at: number;
  updated_at: number;
  deleted_at: number | null;
  /** JSON object of the widget settings that differ from nothing: read under the defaults. */
  widget: string;
  widget_secret_nonce: string | null;
}

export interface ConversationRow {
  id: string;
  chatbot_id: string;
  session_id: string;
  human_takeover: number;
  needs_attention: number;
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

/** SQLite has no boolean: 1 for true, 0 for false. */
export const toFlag = (value: boolean): number => (value ? 1 : 0);

export const planFromRow = (row: PlanRow): Plan => ({ name: row.name, monthlyMessages: row.monthly_messages });

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
  name: row.name,
  slug: row.slug,
  provider: row.provider as Provider,
  model: row.model,
  systemPrompt: row.system_prompt,
  fallbackMessage: row.fallback_message,
  isActive: row.is_active === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
  widget: widgetSettingsFrom(JSON.parse(row.widget) as Partial<WidgetSettings>),
  widgetSecretNonce: row.widget_secret_nonce,
});

/** The named parameters of the chatbot INSERT and UPDATE statements. */
export const chatbotToRow = (chatbot: Chatbot): ChatbotRow => ({
  id: chatbot.id,
  owner_id: chatbot.ownerId,
  name: chatbot.name,
  slug: chatbot.slug,
  provider: chatbot.provider,
  model: chatbot.model,
  system_prompt: chatbot.systemPrompt,
  fallback_message: chatbot.fallbackMessage,
  is_active: toFlag(chatbot.isActive),
  created_at: chatbot.createdAt,
  updated_at: chatbot.updatedAt,
  deleted_at: chatbot.deletedAt,
  widget: JSON.stringify(chatbot.widget),
  widget_secret_nonce: chatbot.widgetSecretNonce,
});

export const conversationFromRow = (row: ConversationRow): Conversation => ({
  id: row.id,
  chatbotId: row.chatbot_id,
  sessionId: row.session_id,
  humanTakeover: row.human_takeover === 1,
  needsAttention: row.needs_attention === 1,
  attentionReason: row.attention_reason as AttentionReason | null,
  messageCount: row.message_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export const conversationSummaryFromRow = (row: ConversationSummaryRow): ConversationSummary => ({
  ...conversationFromRow(row),
  lastMessage:
    row.last_id === null
      ? null
      : messageFromRow({ id: row.last_id, conversation_id: row.id, role: row.last_role!, author: row.last_author!, content: row.last_content!, agent_name: row.last_agent_name, created_at: row.last_created_at!, sources: row.last_sources!, feedback_rating: row.last_feedback_rating, feedback_comment: row.last_feedback_comment, feedback_at: row.last_feedback_at }),
});

export const messageFromRow = (row: MessageRow): Message => ({
  id: row.id,
  conversationId: row.conversation_id,
  role: row.role as MessageRole,
  author: row.author as MessageAuthor,
  content: row.content,
  agentName: row.agent_name,
  createdAt: row.created_at,
  sources: JSON.parse(row.sources) as MessageSource[],
  feedback: row.feedback_rating ? { rating: row.feedback_rating as FeedbackRating, comment: row.feedback_comment ?? null, createdAt: row.feedback_at! } : null,
});

// The type and its data were written together from one OutboxEvent, so they still match.
export const outboxEventFromRow = (row: OutboxEventRow): OutboxEvent =>
  ({
    id: row.id,
    type: row.type,
    userId: row.user_id,
    chatbotId: row.chatbot_id,
    data: JSON.parse(row.data) as unknown,
    createdAt: row.created_at,
  }) as OutboxEvent;
