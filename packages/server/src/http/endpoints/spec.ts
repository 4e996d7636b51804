import { DEFAULT_SETTINGS, MAX_MESSAGE_CHARS, MAX_SESSION_ID_CHARS } from "@parley/core";
import type { ErrorObject } from "ajv";
import { chatTurns } from "../chat-turns.js";
import { defineEndpoint, key, ok, type Example, type Tag } from "../endpoint.js";
import { details, missing } from "../openapi-components.js";

// The spec's three routes, and the session messages route for chat keys (docs/design.md §4, §10).

const CHAT: Tag = { name: "chat", description: "Messages and replies" };
const CHATBOTS: Tag = { name: "chatbots", description: "Read-only access to the caller's chatbots (any key)" };

/** The chat request body (the spec's table), as a JSON Schema. */
export const chatRequestSchema = {
  type: "object",
  required: ["message"],
  properties: {
    message: { type: "string", minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "The user's message; surrounding whitespace is trimmed first." },
    session_id: {
      type: "string",
      minLength: 1,
      maxLength: MAX_SESSION_ID_CHARS,
      description:
        "Identifies the session so history carries across turns. Defaults to `api-<user id>`, one conversation for every call of the user (with any of its keys) that sends none: an integration serving several end users must send one per end user, or their histories mix.",
    },
  },
} as const;

/** The message is trimmed before its length is checked (docs/design.md §4). */
function trimMessage(body: unknown): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const message = (body as { message?: unknown }).message;
  return typeof message === "string" ? { ...body, message: message.trim() } : body;
}

/** The spec's 422 wording: a missing, mistyped or empty field is "must be a non-empty string". */
function describeChatError(error: ErrorObject): string {
  if (error.instancePath === "" && error.keyword === "type") return "body: must be a JSON object";
  const field = error.keyword === "required" ? String(error.params.missingProperty) : error.instancePath.slice(1);
  if (error.keyword === "maxLength") return `${field}: must be at most ${String(error.params.limit)} characters`;
  return `${field}: must be a non-empty string`;
}

const SPEC = key("chat", "admin");
const kettleHelp = { id: "3f0c9a55-2b7e-4c1d-9e8a-6d5b4c3a2f10", name: "Kettle Help", slug: "kettle-help", provider: "openai", is_active: true, created_at: "2025-06-12T09:30:00.123456+00:00" };
/** The refusal of an `after` that is not a message of the conversation. */
export const AFTER_REFUSAL: Example = ["badAfter", "`after` is not a message of this conversation", "after: must be the id of a message of this conversation"];

export const sendChatMessage = defineEndpoint({
  method: "POST",
  path: "/v1/chatbots/{chatbot_id}/chat",
  operationId: "sendChatMessage",
  summary: "Send a message to a chatbot and get its reply",
  description: `The retrieval-augmented pipeline: quota and conversation rate, find or create the conversation of (chatbot_id, session_id), store the message, retrieve context (BM25 + vectors fused by Reciprocal Rank Fusion), build the prompt with the conversation's last ${DEFAULT_SETTINGS.historyTurns} messages, call the chatbot's model, store and return the reply. Every accepted message counts toward the plan's monthly quota. Fires \`conversation.started\` (new conversation) and \`message.received\` webhooks. The reply carries no conversation id: the conversation is identified by \`session_id\`.`,
  tag: CHAT,
  // The core reads the key with the chat's state and limits both at once (docs/scaling.md).
  access: { ...SPEC, inCore: true },
  body: {
    name: "ChatRequest",
    schema: chatRequestSchema,
    description:
      "At most 1 MiB, `Content-Type: application/json`. Unknown fields are ignored. `message` is trimmed before its length is checked. Without `session_id`, all calls of one user, with any of its keys, share the conversation `api-<user id>`: send one `session_id` per end user.",
    examples: { question: { summary: "A question in a session", value: { message: "How long is the warranty?", session_id: "visitor-42" } } },
    prepare: trimMessage,
    describe: describeChatError,
  },
  success: {
    status: 200,
    description: "The chatbot's reply. A blank model reply is replaced by the chatbot's `fallback_message`.",
    schema: "ChatResponse",
    examples: { reply: { summary: "A reply", value: { response: "The kettle comes with a 2-year limited warranty." } } },
  },
  responses: {
    202: {
      description:
        "A human agent has taken over the conversation: the message is stored, counts toward the quota and fires its events; the model is not called and the reply is empty.",
      schema: "ChatResponse",
      examples: { takeover: { summary: "Human takeover", value: { response: "" } } },
    },
    403: { description: "The chatbot is paused by its owner: nothing is stored or counted, no event fires.", refusals: [["paused", "Paused chatbot", details.paused]] },
    404: "ChatbotNotFound",
    422: {
      description:
        "The body is JSON of the wrong shape. `detail` names the first offending field and the problem. Checked before the chatbot is looked up: a bad body to an unknown chatbot is 422.",
      refusals: [
        ["missingMessage", "`message` missing, not a string, empty or blank", { refused: {} }],
        ["longMessage", "`message` longer than 32,000 characters after trimming", { refused: { message: "x".repeat(MAX_MESSAGE_CHARS + 1) } }],
        ["badSession", "`session_id` not a string, or empty", { refused: { message: "hi", session_id: 7 } }],
        ["longSession", "`session_id` longer than 255 characters", { refused: { message: "hi", session_id: "s".repeat(MAX_SESSION_ID_CHARS + 1) } }],
        ["notAnObject", "Body is not a JSON object", { refused: [] }],
      ],
    },
    429: {
      description:
        "Three refusals share this status and are told apart only by `detail`: the per-key rate limit (`API rate limit exceeded. Maximum N requests per minute.`, N = `PARLEY_KEY_RATE_LIMIT`); the plan's monthly message quota (detail begins `Monthly message limit reached` and names the plan, its limit and the reset date; `Retry-After` counts the seconds until the month resets); and the per-conversation rate limit (`Conversation rate limit exceeded. Maximum N messages per minute in one conversation.`, N = `PARLEY_CONVERSATION_RATE_LIMIT`). Nothing is stored for a refused message.",
      refusals: [
        ["keyRateLimit", "Per-key rate limit", details.keyRateLimited],
        ["quota", "Monthly message quota used up", details.quotaExceeded],
        ["conversationRateLimit", "Per-conversation rate limit", details.conversationRateLimited],
      ],
    },
    500: {
      description:
        "The LLM provider failed (error, timeout after `PARLEY_LLM_TIMEOUT_MS` with retries, or an unusable reply), or an internal fault. The user message stays stored; no provider text, secret or stack appears in the body.",
      refusals: [
        ["providerFailed", "Provider failure", details.providerFailed],
        ["internal", "Internal fault", details.internal],
      ],
    },
  },
  async handle({ parley, params, keyed }) {
    await chatTurns.next();
    const result = await parley.chatWithKey(keyed!.token, params.chatbot_id, keyed!.readBody, keyed!.progress);
    // A human agent has the conversation: accepted and stored, no reply generated.
    return result.humanTakeover ? { status: 202, body: { response: "" } } : ok({ response: result.response });
  },
});

export const listChatbots = defineEndpoint({
  method: "GET",
  path: "/v1/chatbots",
  operationId: "listChatbots",
  summary: "List the caller's chatbots",
  description:
    "A bare JSON array (no envelope) of the chatbots owned by the key's user, in list form, newest first (`created_at` descending, ties by id). Soft-deleted chatbots are left out; paused ones are listed with `is_active: false`.",
  tag: CHATBOTS,
  access: SPEC,
  success: { status: 200, description: "The caller's chatbots.", schema: "ChatbotList", examples: { chatbots: { summary: "One chatbot", value: [kettleHelp] } } },
  handle: async ({ parley, caller }) => ok(await parley.listChatbots(caller)),
});

export const getChatbot = defineEndpoint({
  method: "GET",
  path: "/v1/chatbots/{chatbot_id}",
  operationId: "getChatbot",
  summary: "Read one of the caller's chatbots",
  description: "The chatbot in detail form: the list fields plus `system_prompt` and `fallback_message`.",
  tag: CHATBOTS,
  access: SPEC,
  success: {
    status: 200,
    description: "The chatbot.",
    schema: "ChatbotDetail",
    examples: {
      chatbot: {
        summary: "A chatbot",
        value: { ...kettleHelp, system_prompt: "You help owners of the Kettlebird One smart kettle.", fallback_message: "Sorry, I can't answer that right now." },
      },
    },
  },
  responses: { 404: "ChatbotNotFound" },
  handle: async ({ parley, caller, params }) => ok(await parley.getChatbot(caller, params.chatbot_id)),
});

export const listSessionMessages = defineEndpoint({
  method: "GET",
  path: "/v1/chatbots/{chatbot_id}/sessions/{session_id}/messages",
  operationId: "listSessionMessages",
  summary: "A session's messages, for integrations without webhooks",
  description:
    "Any key of the chatbot's owner (chat or admin), with the limits of the spec routes. The messages of the conversation of (chatbot, session), oldest first; with `?after=` only the later ones: poll with the id of the last message seen to get an agent's replies.",
  tag: CHAT,
  access: SPEC,
  parameters: ["After"],
  success: { status: 200, description: "The messages.", schema: "SessionMessages" },
  notFound: [missing("Chatbot"), missing("Conversation")],
  invalid: [AFTER_REFUSAL],
  handle: async ({ parley, caller, params, query }) => ok(await parley.listSessionMessages(caller, params.chatbot_id, params.session_id, { after: query.after })),
});
