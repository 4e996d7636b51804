import { EVENT_TYPES } from "@parley/core";
import { checkReply } from "./admin-schemas.js";
import { HEARTBEAT_MS } from "./event-stream.js";
import { adminOperation, detailOf, missing, PAGE_ERRORS } from "./openapi-admin-components.js";
import { ADMITTED, ref } from "./openapi-components.js";

// The operator API's inbox routes, the live events and the session messages route
// (docs/design.md §9, §10), for docs/openapi.json.

const CONVERSATION = missing("Conversation");
const AFTER: [string, string, string] = ["badAfter", "`after` is not a message of this conversation", "after: must be the id of a message of this conversation"];

const streamExample = `: connected

id: 0d8e5c1a-6b0e-4f3e-9a51-2f1c7d9b4e22
event: conversation.takeover_started
data: {"type":"conversation.takeover_started","timestamp":"2025-06-12T09:31:02.000000+00:00","data":{"conversation_id":"5b7f…","chatbot_id":"3f0c…","session_id":"visitor-42","at":"2025-06-12T09:31:02.000000+00:00"}}

: keep-alive

`;

/** `GET /v1/admin/events`: a stream, so written out here rather than by adminOperation. */
const eventsOperation = {
  operationId: "streamEvents",
  summary: "Live events (Server-Sent Events)",
  description: `The caller's events as they are committed (${EVENT_TYPES.map((type) => `\`${type}\``).join(", ")}), from the same outbox as webhooks. Each event is \`id: <event id>\`, \`event: <type>\`, \`data: <the webhook body>\` (one line of JSON, schema \`EventBody\`) and a blank line. The stream opens with the comment \`: connected\` and sends \`: keep-alive\` every ${HEARTBEAT_MS / 1000} s. A client that reconnects with \`Last-Event-ID\` first receives every later event from the outbox. The key travels in the \`Authorization\` header (a browser's EventSource cannot send one: read the stream with fetch). When the server stops, the stream ends; reconnect with \`Last-Event-ID\`. One key holds at most \`PARLEY_MAX_STREAMS_PER_KEY\` (5) streams per server process: past it 429 \`Too many event streams open for this API key: at most 5 at once. Close one before opening another.\` Revoking the key ends its streams.`,
  tags: ["admin: conversations"],
  parameters: [ref("parameters", "LastEventId"), ref("parameters", "RequestId")],
  responses: {
    "200": {
      description: "An endless `text/event-stream`.",
      headers: Object.fromEntries(ADMITTED.map((name) => [name, ref("headers", name)])),
      content: { "text/event-stream": { schema: { type: "string", description: "Server-Sent Events; each `data:` line is an `EventBody`." }, examples: { stream: { summary: "A takeover, then a heartbeat", value: streamExample } } } },
    },
    "401": ref("responses", "Unauthorized"),
    "403": ref("responses", "AdminForbidden"),
    "429": ref("responses", "AdminKeyRateLimited"),
  },
};

/** The conversation routes of the operator API, the live events, and the session messages route for chat keys. */
export const conversationPaths = {
  "/v1/admin/conversations": {
    get: adminOperation({
      operationId: "listConversations",
      summary: "The inbox: the caller's conversations",
      description:
        "Newest activity first (`updated_at`: a message or a takeover change), so a conversation that gets activity moves to the top. `status=bot` (the chatbot answers), `human` (taken over) or `attention` (`needs_attention` is true). Conversations of deleted chatbots are left out.",
      tag: "admin: conversations",
      parameters: ["ChatbotFilter", "ConversationStatus", "Limit", "Cursor"],
      success: ["200", "A page of conversations.", "ConversationPage"],
      notFound: [missing("Chatbot")],
      invalid: [...PAGE_ERRORS, ["badStatus", "An unknown status", "status: must be one of bot, human, attention"]],
    }),
  },
  "/v1/admin/conversations/{conversation_id}": {
    get: adminOperation({
      operationId: "getConversation",
      summary: "One conversation with its messages",
      description: "The conversation and every message, oldest first, each with its author (`user`, `model` or `agent`); with `?after=` only the messages after that one (for polling).",
      tag: "admin: conversations",
      parameters: ["ConversationId", "After"],
      success: ["200", "The conversation.", "ConversationWithMessages"],
      notFound: [CONVERSATION],
      invalid: [AFTER],
    }),
  },
  "/v1/admin/conversations/{conversation_id}/takeover": {
    post: adminOperation({
      operationId: "startTakeover",
      summary: "A human agent takes the conversation",
      description: "From now on chat answers 202 with an empty reply and the model is not called. Fires `conversation.takeover_started` (once: taking over a taken conversation changes nothing). No body is read.",
      tag: "admin: conversations",
      parameters: ["ConversationId"],
      success: ["200", "The conversation, taken over.", "Conversation"],
      notFound: [CONVERSATION],
    }),
    delete: adminOperation({
      operationId: "endTakeover",
      summary: "Give the conversation back to the chatbot",
      description: "The model answers again, with the agent's replies in its history. Fires `conversation.takeover_ended` when the flag changes.",
      tag: "admin: conversations",
      parameters: ["ConversationId"],
      success: ["200", "The conversation, handed back.", "Conversation"],
      notFound: [CONVERSATION],
    }),
  },
  "/v1/admin/conversations/{conversation_id}/messages": {
    post: adminOperation({
      operationId: "replyAsAgent",
      summary: "A human agent's reply",
      description:
        "Stores the reply as an `agent` message (taking the conversation over first when the chatbot had it), clears `needs_attention` and fires `message.sent` with `author: agent`: that is how the visitor's integration gets it. A deleted chatbot's conversation is 404.",
      tag: "admin: conversations",
      parameters: ["ConversationId"],
      body: ["ReplyRequest", { content: "Hi, this is Sam from support. Let me check your order." }],
      success: ["201", "The stored message.", "Message"],
      notFound: [CONVERSATION],
      invalid: [
        ["missingContent", "No content", detailOf(() => checkReply({}))],
        ["blankContent", "Blank content", "content: must be a non-empty string"],
      ],
    }),
  },
  "/v1/admin/events": { get: eventsOperation },
  "/v1/chatbots/{chatbot_id}/sessions/{session_id}/messages": {
    get: adminOperation({
      operationId: "listSessionMessages",
      summary: "A session's messages, for integrations without webhooks",
      description:
        "Any key of the chatbot's owner (chat or admin), with the limits of the spec routes. The messages of the conversation of (chatbot, session), oldest first; with `?after=` only the later ones: poll with the id of the last message seen to get an agent's replies.",
      tag: "chat",
      parameters: ["ChatbotId", "SessionId", "After"],
      success: ["200", "The messages.", "SessionMessages"],
      notFound: [missing("Chatbot"), CONVERSATION],
      invalid: [AFTER],
      anyKey: true,
    }),
  },
};
