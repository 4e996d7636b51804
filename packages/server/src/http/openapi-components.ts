import {
  chatbotNotFound,
  chatbotPaused,
  conversationRateLimited,
  DEFAULT_SETTINGS,
  internalError,
  providerFailed,
  quotaExceeded,
  rateLimited,
  unauthorized,
} from "@parley/core";
import { REQUEST_ID_PATTERN } from "./create-request-handler.js";
import { HttpError } from "./http-error.js";
import { chatbotDetailSchema, chatbotSummarySchema, chatRequestSchema, chatResponseSchema, checkChatRequest, errorSchema } from "./schemas.js";

/** A deep, mutable copy: the document must not share objects with the validators' schemas. */
const copy = <T>(value: T): unknown => structuredClone(value);

/** A `$ref` to a component of the document. */
export const ref = (kind: "schemas" | "headers" | "parameters" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The body `GET /healthz` answers; the server writes it as a literal and validates nothing. */
const healthSchema = {
  type: "object",
  required: ["status"],
  properties: { status: { type: "string", const: "ok" } },
  additionalProperties: false,
};

/** The JSON Schemas of the bodies: the very objects the server validates with (schemas.ts). */
export const schemas = {
  ChatRequest: copy(chatRequestSchema),
  ChatResponse: copy(chatResponseSchema),
  ChatbotSummary: copy(chatbotSummarySchema),
  ChatbotDetail: copy(chatbotDetailSchema),
  ChatbotList: { type: "array", items: ref("schemas", "ChatbotSummary"), description: "The caller's chatbots, newest first; soft-deleted ones are left out." },
  Error: copy(errorSchema),
  Health: healthSchema,
};

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });

/** The response headers, by the name the server sends them under (HTTP header names are case-insensitive). */
export const headers = {
  "X-Request-Id": {
    description: "The request's id: the `X-Request-Id` the client sent when it matches the parameter's pattern, else a fresh UUID. Also in the access log line.",
    schema: { type: "string" },
  },
  "Cache-Control": {
    description: "Always `no-store`: answers carry system prompts and replies, so no browser or proxy may keep a copy.",
    schema: { type: "string", const: "no-store" },
  },
  "RateLimit-Limit": integerHeader(
    `Requests allowed per API key in any 60-second window (\`PARLEY_KEY_RATE_LIMIT\`, default ${DEFAULT_SETTINGS.keyRequestsPerMinute}; for a key with the admin scope \`PARLEY_ADMIN_KEY_RATE_LIMIT\`, default ${DEFAULT_SETTINGS.adminKeyRequestsPerMinute}). On every response to an authenticated request.`,
  ),
  "RateLimit-Remaining": integerHeader("Requests this key may still make in the current window."),
  "RateLimit-Reset": integerHeader("Seconds until the window holds none of this key's requests."),
  "Retry-After": integerHeader("Seconds to wait before retrying. For the monthly quota: seconds until the next UTC calendar month."),
  "WWW-Authenticate": { description: "Always `Bearer`.", schema: { type: "string", const: "Bearer" } },
};

/** The detail of the refusal `refuse` throws (an HttpError), so examples quote the validator's own words. */
function detailOf(refuse: () => void): string {
  try {
    refuse();
  } catch (error) {
    if (error instanceof HttpError) return error.detail;
  }
  throw new Error("expected the validator to refuse this body");
}

/** Exact detail texts. Core texts come from the core's error factories; the HTTP layer's are checked against a live server by the tests. */
export const details = {
  unauthorized: unauthorized().detail,
  notFound: chatbotNotFound().detail,
  paused: chatbotPaused().detail,
  keyRateLimited: rateLimited({ limit: DEFAULT_SETTINGS.keyRequestsPerMinute, remaining: 0, resetSeconds: 60 }, 60).detail,
  quotaExceeded: quotaExceeded(DEFAULT_SETTINGS.defaultPlan.name, DEFAULT_SETTINGS.defaultPlan.monthlyMessages, "2025-07-01", 86_400).detail,
  conversationRateLimited: conversationRateLimited(DEFAULT_SETTINGS.conversationMessagesPerMinute, 60).detail,
  providerFailed: providerFailed().detail,
  internal: internalError().detail,
  invalidJson: "Request body must be valid JSON.",
  tooLarge: "Request body must not exceed 1 MiB.",
  unsupportedMediaType: "Content-Type must be application/json.",
  missingMessage: detailOf(() => checkChatRequest({})),
  longMessage: detailOf(() => checkChatRequest({ message: "x".repeat(Number(chatRequestSchema.properties.message.maxLength) + 1) })),
  badSession: detailOf(() => checkChatRequest({ message: "hi", session_id: 7 })),
  longSession: detailOf(() => checkChatRequest({ message: "hi", session_id: "s".repeat(Number(chatRequestSchema.properties.session_id.maxLength) + 1) })),
  notAnObject: detailOf(() => checkChatRequest([])),
  routeNotFound: "Not found.",
  methodNotAllowed: "Method not allowed.",
};

/** The request parameters shared by the operations. */
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
};

type Example = [name: string, summary: string, detail: string];

/** Header sets: every answer carries X-Request-Id and Cache-Control; an admitted request adds the RateLimit trio. */
const REQUEST_ID = ["X-Request-Id", "Cache-Control"];
const ADMITTED = [...REQUEST_ID, "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];

function headerRefs(names: string[]) {
  return Object.fromEntries(names.map((name) => [name, ref("headers", name)]));
}

/** A response with a JSON body of one schema, its headers, and named examples. */
export function jsonResponse(description: string, schema: string, headerNames: string[], examples: Record<string, { summary: string; value: unknown }>) {
  return { description, headers: headerRefs(headerNames), content: { "application/json": { schema: ref("schemas", schema), examples } } };
}

/** An error response: `{detail}` with each example's exact text. */
export function errorResponse(description: string, headerNames: string[], examples: Example[]) {
  return jsonResponse(
    description,
    "Error",
    headerNames,
    Object.fromEntries(examples.map(([name, summary, detail]) => [name, { summary, value: { detail } }])),
  );
}

const keyRateLimitExample: Example = ["keyRateLimit", "Per-key rate limit", details.keyRateLimited];

/** The reusable responses. */
export const responses = {
  Unauthorized: errorResponse("Missing, malformed, unknown or revoked API key. No RateLimit headers: the request is not counted.", [...REQUEST_ID, "WWW-Authenticate"], [
    ["invalidKey", "Missing or invalid key", details.unauthorized],
  ]),
  ChatbotNotFound: errorResponse("No chatbot with this id is owned by the key's user: it does not exist, is deleted, belongs to someone else, or the id is not a UUID.", ADMITTED, [
    ["notFound", "Unknown chatbot", details.notFound],
  ]),
  KeyRateLimited: errorResponse(
    `More than ${DEFAULT_SETTINGS.keyRequestsPerMinute} requests with this key in the last 60 seconds (the number is the configured \`PARLEY_KEY_RATE_LIMIT\`). A refused request is not counted.`,
    [...ADMITTED, "Retry-After"],
    [keyRateLimitExample],
  ),
  InternalError: errorResponse("An internal fault; the cause is in the server's log, never in the body.", ADMITTED, [
    ["internal", "Internal fault", details.internal],
  ]),
};

/** The chat operation's own refusals. */
export const chatResponses = {
  "400": errorResponse("The body is not valid JSON.", ADMITTED, [["invalidJson", "Not JSON", details.invalidJson]]),
  "403": errorResponse("The chatbot is paused by its owner: nothing is stored or counted, no event fires.", ADMITTED, [["paused", "Paused chatbot", details.paused]]),
  "413": errorResponse("The body exceeds 1 MiB (1,048,576 bytes). The server stops reading and closes the connection (`Connection: close`).", ADMITTED, [
    ["tooLarge", "Body too large", details.tooLarge],
  ]),
  "415": errorResponse("The Content-Type is not `application/json` (parameters such as `charset` are allowed).", ADMITTED, [
    ["unsupportedMediaType", "Wrong content type", details.unsupportedMediaType],
  ]),
  "422": errorResponse(
    "The body is JSON of the wrong shape. `detail` names the first offending field and the problem. Checked before the chatbot is looked up: a bad body to an unknown chatbot is 422.",
    ADMITTED,
    [
      ["missingMessage", "`message` missing, not a string, empty or blank", details.missingMessage],
      ["longMessage", "`message` longer than 32,000 characters after trimming", details.longMessage],
      ["badSession", "`session_id` not a string, or empty", details.badSession],
      ["longSession", "`session_id` longer than 255 characters", details.longSession],
      ["notAnObject", "Body is not a JSON object", details.notAnObject],
    ],
  ),
  "429": errorResponse(
    "Three refusals share this status and are told apart only by `detail`: the per-key rate limit (`API rate limit exceeded. Maximum N requests per minute.`, N = `PARLEY_KEY_RATE_LIMIT`); the plan's monthly message quota (detail begins `Monthly message limit reached` and names the plan, its limit and the reset date; `Retry-After` counts the seconds until the month resets); and the per-conversation rate limit (`Conversation rate limit exceeded. Maximum N messages per minute in one conversation.`, N = `PARLEY_CONVERSATION_RATE_LIMIT`). Nothing is stored for a refused message.",
    [...ADMITTED, "Retry-After"],
    [keyRateLimitExample, ["quota", "Monthly message quota used up", details.quotaExceeded], ["conversationRateLimit", "Per-conversation rate limit", details.conversationRateLimited]],
  ),
  "500": errorResponse(
    "The LLM provider failed (error, timeout after `PARLEY_LLM_TIMEOUT_MS` with retries, or an unusable reply), or an internal fault. The user message stays stored; no provider text, secret or stack appears in the body.",
    ADMITTED,
    [
      ["providerFailed", "Provider failure", details.providerFailed],
      ["internal", "Internal fault", details.internal],
    ],
  ),
};

export { ADMITTED, REQUEST_ID };
