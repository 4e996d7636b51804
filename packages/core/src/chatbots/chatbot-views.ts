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
