import { timestamp, uuid, record } from "./views-chat.js";

// The body of an event, as a webhook delivers it and as each `data:` line of the live stream
// carries it (docs/design.md §5, §10): `{"type", "timestamp", "data"}`.

const where = { conversation_id: uuid, chatbot_id: uuid, session_id: { type: "string" } };

/** The payload of each event type. */
const payloads = {
  "conversation.started": record({ ...where, created_at: timestamp }),
  "message.received": record({ message_id: uuid, ...where, role: { type: "string", const: "user" }, content: { type: "string" }, human_takeover: { type: "boolean" }, created_at: timestamp }),
  "message.sent": record({
    message_id: uuid,
    ...where,
    role: { type: "string", const: "assistant" },
    author: { type: "string", enum: ["model", "agent"] },
    content: { type: "string" },
    created_at: timestamp,
  }),
  "conversation.takeover_started": record({ ...where, at: timestamp }),
  "conversation.takeover_ended": record({ ...where, at: timestamp }),
};

/** An event body: one variant per type. */
export const eventBodySchema = {
  description: "An event as webhooks deliver it and as the live stream's `data:` lines carry it.",
  oneOf: Object.entries(payloads).map(([type, data]) => record({ type: { type: "string", const: type }, timestamp, data })),
};
