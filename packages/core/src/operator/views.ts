// The operator API's views (docs/design.md §9): what each route answers, in its wire form.
import type { Chatbot } from "../domain/chatbot.js";
import type { ConversationEvent, ConversationSummary, Message, MessageSource } from "../domain/conversation.js";
import type { IndexedDocument, Ingestion } from "../domain/ingestion.js";
import type { ApiKey } from "../domain/user.js";
import type { WebhookDelivery, WebhookSubscription } from "../domain/webhook.js";
import { toChatbotDetail } from "../chatbots/chatbot-views.js";
import { formatTimestamp } from "../support/time.js";
import { toFeedbackView } from "../widget/rate-reply.js";

const time = (micros: number | null) => (micros === null ? null : formatTimestamp(micros));

/** The admin view of a chatbot: the spec's detail form plus its model, last change, knowledge size and widget. */
export function toAdminChatbot(chatbot: Chatbot, stats: { documents: number; chunks: number }) {
  return {
    ...toChatbotDetail(chatbot),
    model: chatbot.model,
    updated_at: formatTimestamp(chatbot.updatedAt),
    documents: stats.documents,
    chunks: stats.chunks,
    widget: toWidgetView(chatbot),
  };
}

/** A chatbot's widget settings as its owner sees them: the title resolved (the chatbot's name when unset), and whether an identity secret exists (never the secret). */
export function toWidgetView(chatbot: Chatbot) {
  const { widget } = chatbot;
  return {
    enabled: widget.enabled,
    allowed_origins: [...widget.allowed_origins],
    title: widget.title ?? chatbot.name,
    welcome_message: widget.welcome_message,
    starter_questions: [...widget.starter_questions],
    accent_color: widget.accent_color,
    position: widget.position,
    identity_required: widget.identity_required,
    has_secret: chatbot.widgetSecretNonce !== null,
  };
}

/** `user` for the visitor, `model` or `agent` for replies. */
export function authorOf(message: Message): "user" | "model" | "agent" {
  return message.author === "end_user" ? "user" : message.author;
}

/** A message: who wrote it (an agent's reply with the agent's name), what, when, and for a model reply the documents its context came from. */
export function toMessageView(message: Message) {
  return {
    id: message.id,
    author: authorOf(message),
    agent_name: message.agentName,
    content: message.content,
    created_at: formatTimestamp(message.createdAt),
    sources: message.sources.map(toSourceView),
    feedback: toFeedbackView(message.feedback),
  };
}

/** A source of a reply, in its wire form. */
export function toSourceView(source: MessageSource) {
  return { document_id: source.documentId, title: source.title, source: source.source, page: source.page };
}

/** What a conversation view shows for the calling key (docs/design.md §16): its unread count and the takeover timeline. */
export interface ConversationTeamFacts {
  unreadCount: number;
  events: ConversationEvent[];
}

/** A conversation as lists show it, with its latest message cut to 200 characters, and what the calling key has not read. */
export function toConversationView(conversation: ConversationSummary, team: ConversationTeamFacts) {
  const last = conversation.lastMessage;
  return {
    id: conversation.id,
    chatbot_id: conversation.chatbotId,
    session_id: conversation.sessionId,
    human_takeover: conversation.humanTakeover,
    needs_attention: conversation.needsAttention,
    attention_reason: conversation.attentionReason,
    message_count: conversation.messageCount,
    unread_count: team.unreadCount,
    last_message: last && {
      author: authorOf(last),
      agent_name: last.agentName,
      content: [...last.content].slice(0, 200).join(""),
      created_at: formatTimestamp(last.createdAt),
    },
    events: team.events.map((event) => ({ type: event.type, by: event.by, at: formatTimestamp(event.at) })),
    created_at: formatTimestamp(conversation.createdAt),
    updated_at: formatTimestamp(conversation.updatedAt),
  };
}

/** A document of a chatbot's knowledge. */
export function toDocumentView(document: IndexedDocument) {
  return {
    id: document.id,
    title: document.title,
    source: document.source,
    type: document.type,
    chunks: document.chunks,
    bytes: document.bytes,
    created_at: formatTimestamp(document.createdAt),
    updated_at: formatTimestamp(document.updatedAt),
  };
}

/** An ingestion's progress and outcome. */
export function toIngestionView(ingestion: Ingestion) {
  return {
    id: ingestion.id,
    chatbot_id: ingestion.chatbotId,
    status: ingestion.status,
    documents_total: ingestion.documentsTotal,
    documents_done: ingestion.documentsDone,
    chunks: ingestion.chunks,
    errors: ingestion.errors.map(({ source, detail }) => ({ source, detail })),
    created_at: formatTimestamp(ingestion.createdAt),
    finished_at: time(ingestion.finishedAt),
  };
}

/** A key, never its secret; `current` is true for the key making the call (revoking it signs the caller out). */
export function toKeyView(key: ApiKey, callerKeyId: string) {
  return {
    id: key.id,
    name: key.name,
    scope: key.scope,
    current: key.id === callerKeyId,
    created_at: formatTimestamp(key.createdAt),
    last_used_at: time(key.lastUsedAt),
    revoked_at: time(key.revokedAt),
  };
}

/** A webhook subscription, never its secret. */
export function toWebhookView(subscription: WebhookSubscription) {
  return { id: subscription.id, url: subscription.url, chatbot_id: subscription.chatbotId, events: [...subscription.eventTypes], created_at: formatTimestamp(subscription.createdAt) };
}

/** One delivery of one event to one subscription. */
export function toDeliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    webhook_id: delivery.subscriptionId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status: delivery.lastResponseStatus,
    next_attempt_at: time(delivery.nextAttemptAt),
    created_at: formatTimestamp(delivery.createdAt),
  };
}
