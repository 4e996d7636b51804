/** Payload of `conversation.started` (docs/design.md §5). */
export interface ConversationStartedData {
  conversation_id: string;
  chatbot_id: string;
  session_id: string;
  created_at: string;
}

/** Payload of `message.received` (docs/design.md §5). */
export interface MessageReceivedData {
  message_id: string;
  conversation_id: string;
  chatbot_id: string;
  session_id: string;
  role: "user";
  content: string;
  human_takeover: boolean;
  created_at: string;
}

/** Payload of `message.sent` (docs/design.md §10): every stored assistant message, the model's or an agent's. */
export interface MessageSentData {
  message_id: string;
  conversation_id: string;
  chatbot_id: string;
  session_id: string;
  role: "assistant";
  author: "model" | "agent";
  content: string;
  created_at: string;
}

/** Payload of `conversation.takeover_started` and `conversation.takeover_ended` (docs/design.md §10). */
export interface TakeoverChangedData {
  conversation_id: string;
  chatbot_id: string;
  session_id: string;
  at: string;
}

/** Every event kind with its payload. */
export type ParleyEventMap = {
  "conversation.started": ConversationStartedData;
  "message.received": MessageReceivedData;
  "message.sent": MessageSentData;
  "conversation.takeover_started": TakeoverChangedData;
  "conversation.takeover_ended": TakeoverChangedData;
};

/** One of the event kinds. */
export type EventType = keyof ParleyEventMap;

/** The event kinds, for validation. */
export const EVENT_TYPES: readonly EventType[] = [
  "conversation.started",
  "message.received",
  "message.sent",
  "conversation.takeover_started",
  "conversation.takeover_ended",
];

/**
 * An event as written to the outbox, in the same transaction as the message that caused it,
 * so that no fired event is ever lost. Webhook delivery reads the outbox.
 */
export type OutboxEvent = {
  [K in EventType]: {
    id: string;
    type: K;
    /** The owner of the chatbot: subscriptions are per user. */
    userId: string;
    chatbotId: string;
    data: ParleyEventMap[K];
    createdAt: number;
  };
}[EventType];
