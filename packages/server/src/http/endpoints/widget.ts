import { chatbotPaused, FEEDBACK_RATINGS, IDENTITY_NOT_VERIFIED, MAX_FEEDBACK_COMMENT_CHARS, isParleyError, MAX_MESSAGE_CHARS, MAX_USER_ID_CHARS, toVisitorMessageView, type ChatStreamEvent } from "@parley/core";
import type { ServerResponse } from "node:http";
import { chatTurns } from "../chat-turns.js";
import { defineEndpoint, created, noContent, ok, visitor, type Tag } from "../endpoint.js";
import { HEARTBEAT_MS, writeEventStreamHead } from "../event-stream.js";
import { HttpError, statusForCode } from "../http-error.js";
import { details } from "../openapi-components.js";
import { MAX_STREAMS_PER_SESSION, tooManyVisitorStreamsDetail } from "../visitor-event-stream.js";
import { AFTER_REFUSAL } from "./spec.js";

// The chat widget's public routes (docs/design.md §14): no API key; a chatbot with its widget on,
// the Origin rule and CORS, visitor tokens and per-address limits are checked before any handler
// (create-request-handler.ts), so each handler is a thin door onto `parley.widget`.

const WIDGET: Tag = {
  name: "widget",
  description:
    "The chat widget's public routes: no API key. A chatbot that does not exist, is deleted or has its widget off is 404 `Chatbot not found.` on every one. A browser page must be the server's own origin or one of the chatbot's `allowed_origins` (CORS answers for those); the routes after `sessions` take `Authorization: Bearer <visitor token>`.",
};

const paused = chatbotPaused().detail;
const nullableString = { type: ["string", "null"] } as const;
const sampleMessage = {
  id: "8c1d2f4a-3b5e-4f6a-9b7c-0d1e2f3a4b5c",
  author: "user",
  agent_name: null,
  content: "How long is the warranty?",
  created_at: "2025-06-12T09:31:00.000000+00:00",
  sources: [],
  feedback: null,
};
const sampleReply = {
  ...sampleMessage,
  id: "9d2e3f5b-4c6f-4a7b-8c9d-1e2f3a4b5c6d",
  author: "model",
  content: "The kettle comes with a 2-year limited warranty.",
  sources: [{ document_id: "7a1b2c3d-4e5f-4a6b-9c8d-7e6f5a4b3c2d", title: "Warranty", source: "warranty.pdf", page: 2 }],
};

const replyStreamExample = `event: message
data: {"id":"8c1d…","author":"user","agent_name":null,"content":"How long is the warranty?","created_at":"2025-06-12T09:31:00.000000+00:00","sources":[],"feedback":null}

event: delta
data: {"text":"The kettle comes"}

event: delta
data: {"text":" with a 2-year limited warranty."}

event: reply
data: {"id":"9d2e…","author":"model","agent_name":null,"content":"The kettle comes with a 2-year limited warranty.","created_at":"2025-06-12T09:31:01.000000+00:00","sources":[{"document_id":"7a1b…","title":"Warranty","source":"warranty.pdf","page":2}],"feedback":null}

`;

const eventsExample = `: connected

id: 0d8e5c1a-6b0e-4f3e-9a51-2f1c7d9b4e22
event: conversation.takeover_started
data: {"type":"conversation.takeover_started","timestamp":"2025-06-12T09:31:02.000000+00:00","data":{"conversation_id":"5b7f…","chatbot_id":"3f0c…","session_id":"visitor-Qm9vYmFyQmF6UXV4UXV1eA","at":"2025-06-12T09:31:02.000000+00:00"}}

`;

export const getWidget = defineEndpoint({
  method: "GET",
  path: "/v1/widget/{chatbot_id}",
  operationId: "getWidget",
  summary: "A chatbot's public widget appearance",
  description: "What the widget shows before the first message. `available` is false while the owner has paused the chatbot (its messages are then refused with 403).",
  tag: WIDGET,
  access: visitor({ session: false }),
  success: {
    status: 200,
    description: "The appearance.",
    schema: "WidgetAppearance",
    examples: {
      widget: {
        summary: "A widget",
        value: { title: "Kettle Help", welcome_message: "Hi! Ask me about your kettle.", starter_questions: ["How long is the warranty?"], accent_color: "#2563eb", position: "right", identity_required: false, available: true },
      },
    },
  },
  handle: async ({ parley, caller }) => ok(parley.widget.appearance(caller.widget)),
});

export const startVisitorSession = defineEndpoint({
  method: "POST",
  path: "/v1/widget/{chatbot_id}/sessions",
  operationId: "startVisitorSession",
  summary: "Start a visitor session",
  description: `A new session and its token (opaque, valid 30 days; send it as \`Authorization: Bearer <token>\`, never in a URL). Without \`user_id\` the session is \`visitor-\` and 22 random characters; with a \`user_id\` (1–${MAX_USER_ID_CHARS} characters) and its \`user_hash\` (the lowercase hex HMAC-SHA256 of \`user_id\` under the chatbot's widget secret) it is \`user-<user_id>\`, the same conversation on every device. Counts toward the client address's \`PARLEY_WIDGET_SESSIONS_PER_HOUR\` (10) before the identity is checked.`,
  tag: WIDGET,
  access: visitor({ session: false, limit: "sessions" }),
  body: {
    name: "VisitorSessionRequest",
    schema: {
      type: "object",
      properties: {
        user_id: { type: "string", minLength: 1, maxLength: MAX_USER_ID_CHARS, description: "The host site's id of its signed-in user." },
        user_hash: { type: "string", maxLength: 128, description: "Lowercase hex HMAC-SHA256 of `user_id` under the widget secret." },
      },
    },
    examples: { anonymous: { summary: "An anonymous visitor", value: {} }, identified: { summary: "A verified user", value: { user_id: "42", user_hash: "3b1f…" } } },
  },
  success: {
    status: 201,
    description: "The session.",
    schema: "VisitorSession",
    examples: { session: { summary: "An anonymous session", value: { session_id: "visitor-Qm9vYmFyQmF6UXV4UXV1eA", token: "v1.eyJj….k2Vx…" } } },
  },
  responses: {
    403: {
      description: "The identity's hash is missing or wrong, or the widget requires an identity and none was given; or the page's origin is not allowed.",
      refusals: [
        ["identity", "An identity that could not be verified", IDENTITY_NOT_VERIFIED],
        ["origin", "A website the owner has not allowed", details.originRefused],
      ],
    },
  },
  invalid: [["longUserId", "`user_id` longer than 128 characters", { refused: { user_id: "u".repeat(MAX_USER_ID_CHARS + 1) } }]],
  handle: async ({ parley, caller, body }) => created(parley.widget.startSession(caller.widget, body)),
});

/** The visitor message body: the chat route's `message`, trimmed first. */
const visitorMessageSchema = {
  type: "object",
  required: ["message"],
  properties: { message: { type: "string", minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "The visitor's message; surrounding whitespace is trimmed first." } },
} as const;

function trimMessage(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const message = (body as { message?: unknown }).message;
  return typeof message === "string" ? { ...body, message: message.trim() } : body;
}

export const sendVisitorMessage = defineEndpoint({
  method: "POST",
  path: "/v1/widget/{chatbot_id}/messages",
  operationId: "sendVisitorMessage",
  summary: "Send the visitor's message",
  description:
    "A chat of the chatbot's owner with the token's session: the owner's monthly quota, the per-conversation limit, takeover, history, context, fallback and every event exactly as the chat route. With `Accept: text/event-stream` the answer is a stream: `event: message` (the stored visitor message), `event: delta` `{\"text\"}` as the model writes, then `event: reply` (the stored reply with its sources); or `event: handoff` `{}` while an agent has the conversation; or `event: error` `{\"detail\"}`. The reply is stored even if the visitor goes away mid-stream. Counts toward the client address's `PARLEY_WIDGET_MESSAGES_PER_MINUTE` (30).",
  tag: WIDGET,
  access: visitor({ session: true, limit: "messages" }),
  body: {
    name: "VisitorMessageRequest",
    schema: visitorMessageSchema,
    examples: { question: { summary: "A question", value: { message: "How long is the warranty?" } } },
    prepare: trimMessage,
  },
  success: {
    status: 200,
    description: "The stored message and the stored reply (JSON), or the stream.",
    schema: "VisitorExchange",
    examples: { reply: { summary: "A reply", value: { message: sampleMessage, reply: sampleReply } } },
    stream: { description: "Server-Sent Events: `message`, `delta`…, then `reply`; or `handoff`; or `error`.", examples: { stream: { summary: "A streamed reply", value: replyStreamExample } } },
  },
  responses: {
    202: {
      description: "A human agent has the conversation: the message is stored and counted; no reply.",
      schema: "VisitorExchange",
      examples: { takeover: { summary: "Human takeover", value: { message: sampleMessage, reply: null } } },
    },
    403: {
      description: "The chatbot is paused by its owner (nothing stored or counted); the widget requires a verified identity and the session is anonymous; or the page's origin is not allowed.",
      refusals: [
        ["paused", "Paused chatbot", paused],
        ["identity", "An anonymous session on a widget that requires an identity", IDENTITY_NOT_VERIFIED],
        ["origin", "A website the owner has not allowed", details.originRefused],
      ],
    },
  },
  invalid: [
    ["missingMessage", "`message` missing or blank", { refused: {} }],
    ["longMessage", "`message` longer than 32,000 characters after trimming", { refused: { message: "x".repeat(MAX_MESSAGE_CHARS + 1) } }],
  ],
  async handle({ parley, caller, body, request, response, headers }) {
    await chatTurns.next();
    if (!(request.headers.accept ?? "").includes("text/event-stream")) {
      const exchange = await parley.widget.send(caller.widget, caller.sessionId, body.message);
      return { status: exchange.reply === null ? 202 : 200, body: exchange };
    }
    const events = await parley.widget.stream(caller.widget, caller.sessionId, body.message);
    // Steps 1–4 (quota, limits, the stored message) run in the first `next()`: their refusals are JSON answers.
    const first = await events.next();
    await writeReplyStream(response, headers, first.done ? null : first.value, events);
    return null;
  },
});

/** Writes a streamed reply; a visitor who goes away stops the writing, never the reply's generation. */
async function writeReplyStream(response: ServerResponse, headers: Record<string, string>, first: ChatStreamEvent | null, events: AsyncGenerator<ChatStreamEvent>): Promise<void> {
  let gone = false;
  response.on("close", () => (gone = true));
  // The generation is already under way (retrieval, the prompt, the provider SDK's request), and
  // runs without waiting for I/O until its request is on the wire: writing the head and the stored
  // message after this turn of the event loop takes that write off the way to the first token.
  // The visitor's page shows its own message already; `event: message` still comes first.
  await new Promise<void>((resolve) => setImmediate(resolve));
  writeEventStreamHead(response, headers);
  const send = (event: string, data: unknown) => {
    if (!gone) response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  const write = (event: ChatStreamEvent) => {
    if (event.type === "delta") send("delta", { text: event.text });
    else if (event.type === "handoff") send("handoff", {});
    else send(event.type, toVisitorMessageView(event.message));
  };
  try {
    if (first) write(first);
    for (;;) {
      const next = await events.next();
      if (next.done) break;
      write(next.value);
      // Stop reading once the visitor has gone: the core stores the reply all the same.
      if (gone) {
        void events.return(undefined);
        break;
      }
    }
  } catch (error) {
    send("error", { detail: streamErrorDetail(error) });
  }
  if (!response.writableEnded) response.end();
}


/** The text of a failure after the stream began: the spec's texts, never a cause. */
function streamErrorDetail(error: unknown): string {
  if (!isParleyError(error)) return details.internal;
  return statusForCode(error.code) !== 500 || error.code === "provider_failed" ? error.detail : details.internal;
}

export const listVisitorMessages = defineEndpoint({
  method: "GET",
  path: "/v1/widget/{chatbot_id}/messages",
  operationId: "listVisitorMessages",
  summary: "The session's messages",
  description: "The messages of the token's session, oldest first (only those after `after` when given): the visitor's, the model's (with sources) and agents' (with `agent_name`). An empty list before the first message.",
  tag: WIDGET,
  access: visitor({ session: true }),
  parameters: ["After"],
  success: { status: 200, description: "The messages.", schema: "SessionMessages" },
  invalid: [AFTER_REFUSAL],
  handle: async ({ parley, caller, query }) => ok(await parley.widget.messages(caller.widget, caller.sessionId, query.after)),
});

export const streamVisitorEvents = defineEndpoint({
  method: "GET",
  path: "/v1/widget/{chatbot_id}/events",
  operationId: "streamVisitorEvents",
  summary: "The session's live events (Server-Sent Events)",
  description: `The token's session's events as they are committed: \`message.sent\` (the model's and agents' replies), \`conversation.takeover_started\`, \`conversation.takeover_ended\`, each \`id\`, \`event\`, \`data\` (the webhook body, schema \`EventBody\`). Opens with \`: connected\`, a \`: keep-alive\` comment every ${HEARTBEAT_MS / 1000} s; \`Last-Event-ID\` resumes. Read it with fetch (an EventSource cannot send the token). At most 5 streams per session per server process.`,
  tag: WIDGET,
  access: visitor({ session: true }),
  parameters: ["LastEventId"],
  success: {
    status: 200,
    description: "An endless `text/event-stream`.",
    stream: { description: "Server-Sent Events; each `data:` line is an `EventBody`.", examples: { stream: { summary: "A takeover", value: eventsExample } } },
  },
  responses: {
    429: { description: "The session already holds 5 streams in this server process.", refusals: [["tooManyStreams", "One stream too many", tooManyVisitorStreamsDetail(MAX_STREAMS_PER_SESSION)]] },
  },
  async handle({ caller, request, response, headers, streamVisitorEvents }) {
    if (!streamVisitorEvents) throw new HttpError(404, "Not found.");
    await streamVisitorEvents({ visitor: caller, ownerId: caller.widget.chatbot.ownerId, request, response, headers });
    return null;
  },
});

export const rateVisitorReply = defineEndpoint({
  method: "POST",
  path: "/v1/widget/{chatbot_id}/messages/{message_id}/feedback",
  operationId: "rateVisitorReply",
  summary: "Rate a reply",
  description:
    "Rates a model reply of the token's session (a visitor's message, an agent's reply, another session's message or an unknown id is 404); rating again replaces the rating, and the message views show it as `feedback`. Fires `message.rated`.",
  tag: WIDGET,
  access: visitor({ session: true }),
  body: {
    name: "FeedbackRequest",
    schema: {
      type: "object",
      required: ["rating"],
      properties: {
        rating: { type: "string", enum: [...FEEDBACK_RATINGS] },
        comment: { ...nullableString, maxLength: MAX_FEEDBACK_COMMENT_CHARS, description: "The visitor's words, trimmed; empty or null for none." },
      },
    },
    examples: { up: { summary: "Helpful", value: { rating: "up" } }, down: { summary: "Not helpful, with a comment", value: { rating: "down", comment: "It did not answer my question." } } },
  },
  success: { status: 204, description: "Rated." },
  notFound: [["messageNotFound", "Not a model reply of this session", "Message not found."]],
  invalid: [["badRating", "`rating` neither up nor down", { refused: { rating: "meh" } }]],
  async handle({ parley, caller, params, body }) {
    await parley.widget.rate(caller.widget, caller.sessionId, params.message_id, body);
    return noContent();
  },
});
