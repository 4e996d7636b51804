import { EVENT_PAYLOAD_SCHEMAS } from "@parley/core";
import { record, timestamp } from "./views-chat.js";

/**
 * The body of an event, as a webhook delivers it and as each `data:` line of the live stream
 * carries it (docs/design.md §5, §10): `{"type", "timestamp", "data"}`, one variant per type,
 * its payload the core's own schema.
 */
export const eventBodySchema = {
  description: "An event as webhooks deliver it and as the live stream's `data:` lines carry it.",
  oneOf: Object.entries(EVENT_PAYLOAD_SCHEMAS).map(([type, data]) => record({ type: { type: "string", const: type }, timestamp, data })),
};
