import type { Author, Conversation, ParleyEvent } from "../api/types.js";

/** The inbox's filters, as the list route takes them (docs/design.md §9). */
export interface InboxFilter {
  chatbotId: string;
  status: "" | "bot" | "human" | "attention";
}

/** What an event does to the inbox: the new list, and whether the server must be asked (an unknown conversation). */
export interface Applied {
  list: Conversation[];
  unknown: boolean;
}

const PREVIEW_LENGTH = 200;

/**
 * Why a conversation needs an agent, in words (docs/design.md §16), as they follow "Needs
 * attention:" on the conversation's banner and in the inbox badge's title. `provider_failed` also
 * marks a reply cut off when its server stopped (docs/operations.md, "Logs and shutdown").
 */
export const ATTENTION_LABELS = {
  fallback: "the bot gave its fallback reply",
  provider_failed: "the AI provider failed to answer, or the server stopped mid-reply",
} as const;

/** The same, short enough for the inbox's badge on a phone. */
export const ATTENTION_BADGES = {
  fallback: "fallback reply",
  provider_failed: "no reply",
} as const;

/**
 * Applies one live event to the inbox at once, before the server is asked again: a new message
 * moves its conversation to the top with a fresh preview; a takeover flips the flag. A
 * conversation the list does not hold yet is `unknown`, to be fetched.
 */
export function applyEvent(list: Conversation[], event: ParleyEvent, filter: InboxFilter): Applied {
  const { conversation_id: id, chatbot_id: chatbotId } = event.data;
  if (filter.chatbotId && chatbotId !== filter.chatbotId) return { list, unknown: false };
  const index = list.findIndex((conversation) => conversation.id === id);
  if (index === -1) return { list: withNewConversation(list, event, filter), unknown: true };
  const current = list[index]!;
  if (event.type === "conversation.takeover_started" || event.type === "conversation.takeover_ended") {
    const updated = { ...current, human_takeover: event.type === "conversation.takeover_started" };
    return { list: list.map((conversation, at) => (at === index ? updated : conversation)), unknown: false };
  }
  if (event.type !== "message.received" && event.type !== "message.sent") return { list, unknown: false };
  const author: Author = event.type === "message.received" ? "user" : event.data.author;
  const createdAt = event.data.created_at;
  const updated: Conversation = {
    ...current,
    message_count: current.message_count + 1,
    last_message: { author, agent_name: event.type === "message.sent" ? event.data.agent_name : null, content: event.data.content.slice(0, PREVIEW_LENGTH), created_at: createdAt },
    updated_at: createdAt,
    needs_attention: author === "agent" ? false : current.needs_attention,
    attention_reason: author === "agent" ? null : current.attention_reason,
  };
  return { list: [updated, ...list.slice(0, index), ...list.slice(index + 1)], unknown: false };
}

/**
 * A conversation the list does not hold yet, put at the top from the event alone, so it shows
 * without waiting for the list to be fetched again (which then brings the server's own view).
 * Only where the filter certainly admits it: a new conversation is the bot's, no agent's.
 */
function withNewConversation(list: Conversation[], event: ParleyEvent, filter: InboxFilter): Conversation[] {
  if (event.type !== "conversation.started" && event.type !== "message.received") return list;
  if (filter.status !== "" && filter.status !== "bot") return list;
  const { conversation_id: id, chatbot_id: chatbotId, session_id: sessionId, created_at: createdAt } = event.data;
  const message = event.type === "message.received" ? event.data : undefined;
  const conversation: Conversation = {
    id,
    chatbot_id: chatbotId,
    session_id: sessionId,
    human_takeover: message?.human_takeover === true,
    needs_attention: false,
    attention_reason: null,
    message_count: message ? 1 : 0,
    unread_count: message ? 1 : 0,
    last_message: message ? { author: "user", agent_name: null, content: message.content.slice(0, PREVIEW_LENGTH), created_at: createdAt } : null,
    events: [],
    created_at: createdAt,
    updated_at: createdAt,
  };
  return [conversation, ...list];
}

/** Whether an event is a visitor's new message, which marks its conversation unread. */
export function isVisitorMessage(event: ParleyEvent): event is Extract<ParleyEvent, { type: "message.received" }> {
  return event.type === "message.received";
}
