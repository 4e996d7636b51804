import { EVENT_TYPES } from "@parley/core";
import { defineEndpoint } from "../endpoint.js";
import { HEARTBEAT_MS } from "../event-stream.js";
import { HttpError } from "../http-error.js";
import { INBOX, TEAM } from "./conversations.js";

// The live events: a route like the others whose answer is a stream (docs/design.md §9).

const streamExample = `: connected

id: 0d8e5c1a-6b0e-4f3e-9a51-2f1c7d9b4e22
event: conversation.takeover_started
data: {"type":"conversation.takeover_started","timestamp":"2025-06-12T09:31:02.000000+00:00","data":{"conversation_id":"5b7f…","chatbot_id":"3f0c…","session_id":"visitor-42","at":"2025-06-12T09:31:02.000000+00:00"}}

: keep-alive

`;

export const streamEvents = defineEndpoint({
  method: "GET",
  path: "/v1/admin/events",
  operationId: "streamEvents",
  summary: "Live events (Server-Sent Events)",
  description: `The caller's events as they are committed (${EVENT_TYPES.map((type) => `\`${type}\``).join(", ")}), from the same outbox as webhooks. Each event is \`id: <event id>\`, \`event: <type>\`, \`data: <the webhook body>\` (one line of JSON, schema \`EventBody\`) and a blank line. The stream opens with the comment \`: connected\` and sends \`: keep-alive\` every ${HEARTBEAT_MS / 1000} s. A client that reconnects with \`Last-Event-ID\` first receives every later event from the outbox. The key travels in the \`Authorization\` header (a browser's EventSource cannot send one: read the stream with fetch). When the server stops, the stream ends; reconnect with \`Last-Event-ID\`. One key holds at most \`PARLEY_MAX_STREAMS_PER_KEY\` (5) streams per server process: past it 429 \`Too many event streams open for this API key: at most 5 at once. Close one before opening another.\` Revoking the key ends its streams.`,
  tag: INBOX,
  access: TEAM,
  parameters: ["LastEventId"],
  success: {
    status: 200,
    description: "An endless `text/event-stream`.",
    stream: { description: "Server-Sent Events; each `data:` line is an `EventBody`.", examples: { stream: { summary: "A takeover, then a heartbeat", value: streamExample } } },
  },
  async handle({ caller, request, response, headers, streamEvents }) {
    // A server without an event feed (a bare handler in a test) has no such route.
    if (!streamEvents) throw new HttpError(404, "Not found.");
    await streamEvents({ caller, request, response, headers });
    return null;
  },
});
