import type { Conversation, Message } from "../domain/conversation.js";
import type { OutboxEvent } from "../domain/events.js";
import { formatTimestamp } from "../support/time.js";
import type { EventBus } from "./event-bus.js";

/** The `conversation.started` event of a new conversation. */
export function conversationStarted(id: string, ownerId: string, conversation: Conversation): OutboxEvent {
  return {
    id,
    type: "conversation.started",
    userId: ownerId,
    chatbotId: conversation.chatbotId,
    createdAt: conversation.createdAt,
    data: {
      conversation_id: conversation.id,
      chatbot_id: conversation.chatbotId,
      session_id: conversation.sessionId,
      created_at: formatTimestamp(conversation.createdAt),
    },
  };
}

/**
 * What every message event shares: its envelope but the id and type, and the four fields its
 * data begins with (the rest, then `created_at`, follow in each event's own order).
 */
function messageEventParts(ownerId: string, conversation: Conversation, message: Message) {
  return {
    envelope: { userId: ownerId, chatbotId: conversation.chatbotId, createdAt: message.createdAt },
    where: { message_id: message.id, conversation_id: conversation.id, chatbot_id: conversation.chatbotId, session_id: conversation.sessionId },
  };
}

/** The `message.received` event of a stored user message. */
export function messageReceived(id: string, ownerId: string, conversation: Conversation, message: Message): OutboxEvent {
  const { envelope, where } = messageEventParts(ownerId, conversation, message);
  return {
    id,
    type: "message.received",
    ...envelope,
    data: { ...where, role: "user", content: message.content, human_takeover: conversation.humanTakeover, created_at: formatTimestamp(message.createdAt) },
  };
}

/** The `message.sent` event of a stored assistant message, the model's or an agent's. */
export function messageSent(id: string, ownerId: string, conversation: Conversation, message: Message): OutboxEvent {
  const { envelope, where } = messageEventParts(ownerId, conversation, message);
  return {
    id,
    type: "message.sent",
    ...envelope,
    data: {
      ...where,
      role: "assistant",
      author: message.author === "agent" ? "agent" : "model",
      agent_name: message.agentName,
      content: message.content,
      created_at: formatTimestamp(message.createdAt),
    },
  };
}

/** `conversation.takeover_started` (on) or `conversation.takeover_ended` (off) at `at`. */
export function takeoverChanged(id: string, ownerId: string, conversation: Conversation, on: boolean, at: number): OutboxEvent {
  return {
    id,
    type: on ? "conversation.takeover_started" : "conversation.takeover_ended",
    userId: ownerId,
    chatbotId: conversation.chatbotId,
    createdAt: at,
    data: { conversation_id: conversation.id, chatbot_id: conversation.chatbotId, session_id: conversation.sessionId, at: formatTimestamp(at) },
  };
}

/** The `message.rated` event of a model reply's (new) rating. */
export function messageRated(id: string, ownerId: string, conversation: Conversation, message: Message): OutboxEvent {
  const feedback = message.feedback!;
  return {
    id,
    type: "message.rated",
    userId: ownerId,
    chatbotId: conversation.chatbotId,
    createdAt: feedback.createdAt,
    data: {
      message_id: message.id,
      conversation_id: conversation.id,
      chatbot_id: conversation.chatbotId,
      session_id: conversation.sessionId,
      rating: feedback.rating,
      comment: feedback.comment,
      at: formatTimestamp(feedback.createdAt),
    },
  };
}

/** Tells in-process subscribers of events that are already committed to the outbox. */
export function publish(bus: EventBus, events: OutboxEvent[]): void {
  for (const event of events) {
    // A subscriber's exception must not turn a stored, successful call into a failure.
    try {
      bus.emit(event.type, event.data as never);
    } catch {
      // Subscribers own their errors; the outbox still holds the event for webhooks.
    }
  }
}
