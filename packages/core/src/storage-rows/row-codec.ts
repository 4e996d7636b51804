import type { Chatbot, Provider } from "../domain/chatbot.js";
import type { AttentionReason, Conversation, ConversationSummary, FeedbackRating, Message, MessageAuthor, MessageRole, MessageSource } from "../domain/conversation.js";
import type { EventType, OutboxEvent } from "../domain/events.js";
import type { ApiKey, ApiKeyScope, Plan, User } from "../domain/user.js";
import type { DeliveryStatus, WebhookDelivery, WebhookSubscription } from "../domain/webhook.js";
import { widgetSettingsFrom, type WidgetSettings } from "../domain/widget.js";
import type {
  ApiKeyRow,
  ChatbotRow,
  ConversationRow,
  ConversationSummaryRow,
  Flag,
  MessageRow,
  OutboxEventRow,
  PlanRow,
  UserRow,
  WebhookDeliveryRow,
  WebhookSubscriptionRow,
} from "./rows.js";

/** What one engine stores its own way: booleans, and the text users write. */
export interface RowDialect<F extends Flag> {
  /** A boolean as the engine binds it (SQLite 0/1, PostgreSQL a boolean). */
  flag(value: boolean): F;
  /** A user's text as the engine can store it (PostgreSQL's TEXT holds no NUL); identity where any string fits. */
  toText(value: string): string;
  /** The text {@link toText} stored. */
  fromText(stored: string): string;
}

/** Whether a boolean column, as either engine returns it, is set. */
const isSet = (value: Flag): boolean => value === true || value === 1;

export const planFromRow = (row: PlanRow): Plan => ({ name: row.name, monthlyMessages: row.monthly_messages });

export const userFromRow = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  planName: row.plan_name,
  monthlyMessagesOverride: row.monthly_messages_override,
  createdAt: row.created_at,
});

// The type and its data were written together from one OutboxEvent, so they still match.
export const outboxEventFromRow = (row: OutboxEventRow): OutboxEvent =>
  ({ id: row.id, type: row.type, userId: row.user_id, chatbotId: row.chatbot_id, data: JSON.parse(row.data) as unknown, createdAt: row.created_at }) as OutboxEvent;

export const outboxEventToRow = (event: OutboxEvent): OutboxEventRow => ({
  id: event.id,
  type: event.type,
  user_id: event.userId,
  chatbot_id: event.chatbotId,
  data: JSON.stringify(event.data),
  created_at: event.createdAt,
});

export const webhookSubscriptionFromRow = (row: WebhookSubscriptionRow): WebhookSubscription => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  chatbotId: row.chatbot_id,
  eventTypes: JSON.parse(row.event_types) as EventType[],
  signingKeyId: row.signing_key_id,
  publicOnly: isSet(row.public_only),
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

/**
 * The mappers of the rows that hold a user's text or a boolean to write, for one engine's
 * dialect: the same code on SQLite and PostgreSQL, only `flag`/`toText`/`fromText` differ.
 */
export function createRowCodec<F extends Flag>({ flag, toText, fromText }: RowDialect<F>) {
  const textOrNull = (value: string | null | undefined) => (value == null ? null : fromText(value));

  const messageFromRow = (row: MessageRow): Message => ({
    id: row.id,
    conversationId: row.conversation_id,
    role: row.role as MessageRole,
    author: row.author as MessageAuthor,
    content: fromText(row.content),
    agentName: textOrNull(row.agent_name),
    createdAt: row.created_at,
    sources: JSON.parse(row.sources) as MessageSource[],
    feedback: row.feedback_rating ? { rating: row.feedback_rating as FeedbackRating, comment: textOrNull(row.feedback_comment), createdAt: row.feedback_at! } : null,
  });

  const conversationFromRow = (row: ConversationRow): Conversation => ({
    id: row.id,
    chatbotId: row.chatbot_id,
    sessionId: fromText(row.session_id),
    humanTakeover: isSet(row.human_takeover),
    needsAttention: isSet(row.needs_attention),
    attentionReason: row.attention_reason as AttentionReason | null,
    messageCount: row.message_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

  return {
    apiKeyFromRow: (row: ApiKeyRow): ApiKey => ({
      id: row.id,
      userId: row.user_id,
      name: fromText(row.name),
      keyHash: row.key_hash,
      scope: row.scope as ApiKeyScope,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
      lastUsedAt: row.last_used_at,
    }),
    apiKeyToRow: (key: ApiKey): ApiKeyRow => ({
      id: key.id,
      user_id: key.userId,
      name: toText(key.name),
      key_hash: key.keyHash,
      scope: key.scope,
      created_at: key.createdAt,
      revoked_at: key.revokedAt,
      last_used_at: key.lastUsedAt,
    }),

    chatbotFromRow: (row: ChatbotRow): Chatbot => ({
      id: row.id,
      ownerId: row.owner_id,
      name: fromText(row.name),
      slug: row.slug,
      provider: row.provider as Provider,
      model: fromText(row.model),
      systemPrompt: fromText(row.system_prompt),
      fallbackMessage: fromText(row.fallback_message),
      isActive: isSet(row.is_active),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      deletedAt: row.deleted_at,
      widget: widgetSettingsFrom(JSON.parse(row.widget) as Partial<WidgetSettings>),
      widgetSecretNonce: row.widget_secret_nonce,
    }),
    /** Every column of a chatbot: the INSERT's and the UPDATE's parameters. */
    chatbotToRow: (chatbot: Chatbot): ChatbotRow<F> => ({
      id: chatbot.id,
      owner_id: chatbot.ownerId,
      name: toText(chatbot.name),
      slug: chatbot.slug,
      provider: chatbot.provider,
      model: toText(chatbot.model),
      system_prompt: toText(chatbot.systemPrompt),
      fallback_message: toText(chatbot.fallbackMessage),
      is_active: flag(chatbot.isActive),
      created_at: chatbot.createdAt,
      updated_at: chatbot.updatedAt,
      deleted_at: chatbot.deletedAt,
      widget: JSON.stringify(chatbot.widget),
      widget_secret_nonce: chatbot.widgetSecretNonce,
    }),

    conversationFromRow,
    conversationToRow: (conversation: Conversation): ConversationRow<F> => ({
      id: conversation.id,
      chatbot_id: conversation.chatbotId,
      session_id: toText(conversation.sessionId),
      human_takeover: flag(conversation.humanTakeover),
      needs_attention: flag(conversation.needsAttention),
      attention_reason: conversation.attentionReason,
      message_count: conversation.messageCount,
      created_at: conversation.createdAt,
      updated_at: conversation.updatedAt,
    }),
    conversationSummaryFromRow: (row: ConversationSummaryRow): ConversationSummary => ({
      ...conversationFromRow(row),
      lastMessage:
        row.last_id === null
          ? null
          : messageFromRow({ id: row.last_id, conversation_id: row.id, role: row.last_role!, author: row.last_author!, content: row.last_content!, agent_name: row.last_agent_name, created_at: row.last_created_at!, sources: row.last_sources!, feedback_rating: row.last_feedback_rating, feedback_comment: row.last_feedback_comment, feedback_at: row.last_feedback_at }),
    }),

    messageFromRow,
    /** The columns a message insert writes (MESSAGE_COLUMNS): never its rating. */
    messageToRow: (message: Message): MessageRow => ({
      id: message.id,
      conversation_id: message.conversationId,
      role: message.role,
      author: message.author,
      content: toText(message.content),
      agent_name: message.agentName === null ? null : toText(message.agentName),
      created_at: message.createdAt,
      sources: JSON.stringify(message.sources),
    }),

    webhookSubscriptionToRow: (subscription: WebhookSubscription): WebhookSubscriptionRow => ({
      id: subscription.id,
      user_id: subscription.userId,
      url: subscription.url,
      chatbot_id: subscription.chatbotId,
      event_types: JSON.stringify(subscription.eventTypes),
      signing_key_id: subscription.signingKeyId,
      public_only: flag(subscription.publicOnly),
      created_at: subscription.createdAt,
    }),
  };
}

/** The mappers {@link createRowCodec} makes for one dialect. */
export type RowCodec<F extends Flag> = ReturnType<typeof createRowCodec<F>>;
