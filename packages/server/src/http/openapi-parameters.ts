import { DEFAULT_PAGE_SIZE, DELIVERY_STATUSES, MAX_PAGE_SIZE } from "@parley/core";
import { REQUEST_ID_PATTERN } from "./request-id.js";

// The request parameters of docs/openapi.json. An endpoint's path parameters are found here by
// their name in its path; its query and header parameters are named in its declaration.

const pathId = (name: string, what: string) => ({
  name,
  in: "path",
  required: true,
  description: `The ${what}'s id (a UUID). A malformed, unknown or another user's id is answered 404.`,
  schema: { type: "string" },
});
const query = (name: string, description: string, schema: object) => ({ name, in: "query", required: false, description, schema });

/** Every parameter, by component name. */
export const parameters = {
  ChatbotId: {
    name: "chatbot_id",
    in: "path",
    required: true,
    description: "The chatbot's id, a bare lower-case UUID as the list returns it. An id that is not a UUID is answered 404 `Chatbot not found.`, like a missing one.",
    schema: { type: "string", format: "uuid" },
  },
  RequestId: {
    name: "X-Request-Id",
    in: "header",
    required: false,
    description: "Your id for this request, echoed in the `X-Request-Id` response header and the access log. Any other shape is replaced by a fresh UUID.",
    schema: { type: "string", pattern: REQUEST_ID_PATTERN.source },
  },
  DocumentId: pathId("document_id", "document"),
  IngestionId: pathId("ingestion_id", "ingestion"),
  ConversationId: pathId("conversation_id", "conversation"),
  KeyId: pathId("key_id", "API key"),
  WebhookId: pathId("webhook_id", "webhook subscription"),
  DeliveryId: pathId("delivery_id", "delivery"),
  MessageId: pathId("message_id", "message"),
  SessionId: { name: "session_id", in: "path", required: true, description: "The `session_id` the integration sends to chat (percent-encoded).", schema: { type: "string", minLength: 1, maxLength: 255 } },
  Limit: query("limit", `Items per page, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`, { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  Cursor: query(
    "cursor",
    "The `next_cursor` of the previous page: opaque, valid for this list only. A keyset position, so pages stay correct while new rows arrive at the top.",
    { type: "string" },
  ),
  ChatbotFilter: query("chatbot_id", "Only this chatbot's conversations (404 `Chatbot not found.` for an unknown or foreign one).", { type: "string" }),
  Unread: query("unread", "`true`: only conversations with visitor messages the calling key has not read.", { type: "string", enum: ["true", "false"] }),
  ConversationStatus: query("status", "`bot`: the chatbot answers; `human`: taken over; `attention`: `needs_attention` is true.", { type: "string", enum: ["bot", "human", "attention"] }),
  DeliveryStatus: query("status", "Only deliveries in this state.", { type: "string", enum: [...DELIVERY_STATUSES] }),
  After: query("after", "A message id of this conversation: only the messages after it (an empty list when it is the latest).", { type: "string", format: "uuid" }),
  LastEventId: {
    name: "Last-Event-ID",
    in: "header",
    required: false,
    description: "The `id` of the last event received: every later event of the caller's is sent first, from the outbox. At most 100 characters; anything else is ignored.",
    schema: { type: "string", maxLength: 100 },
  },
};

/** The name of a parameter component. */
export type ParameterName = keyof typeof parameters;

/** The component of each path parameter, by its name in a path template. */
export const PATH_PARAMETERS: Record<string, ParameterName> = {
  chatbot_id: "ChatbotId",
  document_id: "DocumentId",
  ingestion_id: "IngestionId",
  conversation_id: "ConversationId",
  key_id: "KeyId",
  webhook_id: "WebhookId",
  delivery_id: "DeliveryId",
  session_id: "SessionId",
  message_id: "MessageId",
};
