import type { FromSchema } from "json-schema-to-ts";

// The payload of each event, declared once as JSON Schema (docs/design.md §5, §10): the core's
// types below are derived from it, and the server publishes it in docs/openapi.json, from which
// the console's types are generated. Plain data: the core validates nothing with it.

const uuid = { type: "string", format: "uuid" } as const;
/** A timestamp as the API writes it: six fractional digits, offset `+00:00`. */
const timestamp = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}\\+00:00$" } as const;
const where = { conversation_id: uuid, chatbot_id: uuid, session_id: { type: "string" } } as const;
const takeoverChanged = {
  type: "object",
  required: ["conversation_id", "chatbot_id", "session_id", "at"],
  properties: { ...where, at: timestamp },
  additionalProperties: false,
} as const;

/** The JSON Schema of each event type's payload. */
export const EVENT_PAYLOAD_SCHEMAS = {
  "conversation.started": {
    type: "object",
    required: ["conversation_id", "chatbot_id", "session_id", "created_at"],
    properties: { ...where, created_at: timestamp },
    additionalProperties: false,
  },
  "message.received": {
    type: "object",
    required: ["message_id", "conversation_id", "chatbot_id", "session_id", "role", "content", "human_takeover", "created_at"],
    properties: { message_id: uuid, ...where, role: { type: "string", const: "user" }, content: { type: "string" }, human_takeover: { type: "boolean" }, created_at: timestamp },
    additionalProperties: false,
  },
  /** Every stored assistant message, the model's or an agent's. */
  "message.sent": {
    type: "object",
    required: ["message_id", "conversation_id", "chatbot_id", "session_id", "role", "author", "agent_name", "content", "created_at"],
    properties: {
      message_id: uuid,
      ...where,
      role: { type: "string", const: "assistant" },
      author: { type: "string", enum: ["model", "agent"] },
      /** The replying agent's key name; null for the model (docs/design.md §16). */
      agent_name: { oneOf: [{ type: "string" }, { type: "null" }] },
      content: { type: "string" },
      created_at: timestamp,
    },
    additionalProperties: false,
  },
  "conversation.takeover_started": takeoverChanged,
  "conversation.takeover_ended": takeoverChanged,
  /** A visitor rated a model reply (docs/design.md §14); rating again fires it again. */
  "message.rated": {
    type: "object",
    required: ["message_id", "conversation_id", "chatbot_id", "session_id", "rating", "comment", "at"],
    properties: {
      message_id: uuid,
      ...where,
      rating: { type: "string", enum: ["up", "down"] },
      /** The visitor's words (at most 1,000 characters); null when none. */
      comment: { oneOf: [{ type: "string" }, { type: "null" }] },
      at: timestamp,
    },
    additionalProperties: false,
  },
} as const;

type PayloadOf<Type extends keyof typeof EVENT_PAYLOAD_SCHEMAS> = FromSchema<(typeof EVENT_PAYLOAD_SCHEMAS)[Type]>;

/** Payload of `conversation.started` (docs/design.md §5). */
export type ConversationStartedData = PayloadOf<"conversation.started">;
/** Payload of `message.received` (docs/design.md §5). */
export type MessageReceivedData = PayloadOf<"message.received">;
/** Payload of `message.sent` (docs/design.md §10): every stored assistant message, the model's or an agent's. */
export type MessageSentData = PayloadOf<"message.sent">;
/** Payload of `conversation.takeover_started` and `conversation.takeover_ended` (docs/design.md §10). */
export type TakeoverChangedData = PayloadOf<"conversation.takeover_started">;
/** Payload of `message.rated` (docs/design.md §14). */
export type MessageRatedData = PayloadOf<"message.rated">;

/** Every event kind with its payload. */
export type ParleyEventMap = {
  "conversation.started": ConversationStartedData;
  "message.received": MessageReceivedData;
  "message.sent": MessageSentData;
  "conversation.takeover_started": TakeoverChangedData;
  "conversation.takeover_ended": TakeoverChangedData;
  "message.rated": MessageRatedData;
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
  "message.rated",
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
