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
 * Applies one live event to the inbox at once, before the server is asked again: a new message
 * moves its conversation to the top with a fresh preview; a takeover flips the flag. A
 * conversation the list does not hold yet is `unknown`, to be fetched.
 */
export function applyEvent(list: Conversation[], event: ParleyEvent, filter: InboxFilter): Applied {
  const { conversation_id: id, chatbot_id: chatbotId } = event.data;
  if (!id) return { list, unknown: false };
  if (filter.chatbotId && chatbotId && chatbotId !== filter.chatbotId) return { list, unknown: false };
  const index = list.findIndex((conversation) => conversation.id === id);
  if (index === -1) return { list, unknown: true };
  const current = list[index]!;
  if (event.type === "conversation.takeover_started" || event.type === "conversation.takeover_ended") {
    const updated = { ...current, human_takeover: event.type === "conversation.takeover_started" };
    return { list: list.map((conversation, at) => (at === index ? updated : conversation)), unknown: false };
  }
  if (event.type !== "message.received" && event.type !== "message.sent") return { list, unknown: false };
  const author: Author = event.type === "message.received" ? "user" : event.data.author === "agent" ? "agent" : "model";
  const createdAt = event.data.created_at ?? current.updated_at;
  const updated: Conversation = {
    ...current,
    message_count: current.message_count + 1,
    last_message: { author, content: (event.data.content ?? "").slice(0, PREVIEW_LENGTH), created_at: createdAt },
    updated_at: createdAt,
    needs_attention: author === "agent" ? false : current.needs_attention,
  };
  return { list: [updated, ...list.slice(0, index), ...list.slice(index + 1)], unknown: false };
}

/** Whether an event is a visitor's new message, which marks its conversation unread. */
export function isVisitorMessage(event: ParleyEvent): boolean {
  return event.type === "message.received" && typeof event.data.conversation_id === "string";
}
