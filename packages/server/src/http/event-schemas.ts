import { Ajv } from "ajv";
import { chatbotSummarySchema } from "./schemas.js";

// The body of an event, as a webhook delivers it and as each `data:` line of the live stream
// carries it (docs/design.md §5, §10): `{"type", "timestamp", "data"}`.

const timestamp = chatbotSummarySchema.properties.created_at;
const uuid = { type: "string", format: "uuid" } as const;
const record = (properties: Record<string, object>) => ({ type: "object", required: Object.keys(properties), properties, additionalProperties: false }) as const;
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

const ajv = new Ajv({ allErrors: true, strict: true });
ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);

/** Validates one event body, for tests that keep the document honest. */
export const validateEventBody = ajv.compile(eventBodySchema);
