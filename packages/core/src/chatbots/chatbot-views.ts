import type { Chatbot, ChatbotDetail, ChatbotSummary } from "../domain/chatbot.js";
import { formatTimestamp } from "../support/time.js";

/** The spec's list form: exactly its six fields. */
export function toChatbotSummary(chatbot: Chatbot): ChatbotSummary {
  return {
    id: chatbot.id,
    name: chatbot.name,
    slug: chatbot.slug,
    provider: chatbot.provider,
    is_active: chatbot.isActive,
    created_at: formatTimestamp(chatbot.createdAt),
  };
}

/** The spec's detail form: the list form plus the system prompt and the fallback message. */
export function toChatbotDetail(chatbot: Chatbot): ChatbotDetail {
  return { ...toChatbotSummary(chatbot), system_prompt: chatbot.systemPrompt, fallback_message: chatbot.fallbackMessage };
}

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
