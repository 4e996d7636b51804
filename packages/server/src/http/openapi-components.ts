import {
  chatbotNotFound,
  chatbotPaused,
  conversationRateLimited,
  DEFAULT_SETTINGS,
  internalError,
  MAX_PAGE_SIZE,
  notFound,
  providerFailed,
  quotaExceeded,
  rateLimited,
  requireAdminScope,
  unauthorized,
  IDENTITY_NOT_VERIFIED,
  VISITOR_UNAUTHORIZED,
  visitorLimitDetail,
  type Caller,
} from "@parley/core";
import { ORIGIN_REFUSAL } from "./widget-origin.js";
import type { Example } from "./endpoint.js";

// The parts of docs/openapi.json that operations share: headers, parameters, refusals, texts.

/** A `$ref` to a component of the document. */
export const ref = (kind: "schemas" | "headers" | "parameters" | "responses", name: string) => ({ $ref: `#/components/${kind}/${name}` });

/** The detail of the error `refuse` throws, so the document quotes the code's own words. */
function detailOf(refuse: () => unknown): string {
  try {
    refuse();
  } catch (error) {
    if (typeof (error as { detail?: unknown }).detail === "string") return (error as { detail: string }).detail;
  }
  throw new Error("expected a refusal");
}

/** Exact detail texts. Core texts come from the core's error factories; the HTTP layer's are checked against a live server by the tests. */
export const details = {
  unauthorized: unauthorized().detail,
  notFound: chatbotNotFound().detail,
  paused: chatbotPaused().detail,
  keyRateLimited: rateLimited({ limit: DEFAULT_SETTINGS.keyRequestsPerMinute, remaining: 0, resetSeconds: 60 }, 60).detail,
  adminKeyRateLimited: rateLimited({ limit: DEFAULT_SETTINGS.adminKeyRequestsPerMinute, remaining: 0, resetSeconds: 60 }, 60).detail,
  forbidden: detailOf(() => requireAdminScope({ apiKey: { scope: "chat" } } as Caller)),
  agentForbidden: detailOf(() => requireAdminScope({ apiKey: { scope: "agent" } } as Caller)),
  quotaExceeded: quotaExceeded(DEFAULT_SETTINGS.defaultPlan.name, DEFAULT_SETTINGS.defaultPlan.monthlyMessages, "2025-07-01", 86_400).detail,
  conversationRateLimited: conversationRateLimited(DEFAULT_SETTINGS.conversationMessagesPerMinute, 60).detail,
  providerFailed: providerFailed().detail,
  internal: internalError().detail,
  invalidJson: "Request body must be valid JSON.",
  tooLarge: "Request body must not exceed 1 MiB.",
  unsupportedMediaType: "Content-Type must be application/json.",
  routeNotFound: "Not found.",
  visitorUnauthorized: VISITOR_UNAUTHORIZED,
  identityNotVerified: IDENTITY_NOT_VERIFIED,
  originRefused: ORIGIN_REFUSAL,
  visitorSessionsLimited: visitorLimitDetail("sessions", DEFAULT_SETTINGS.widgetSessionsPerHour),
  visitorMessagesLimited: visitorLimitDetail("messages", DEFAULT_SETTINGS.widgetMessagesPerMinute),
  methodNotAllowed: "Method not allowed.",
};

/** The `[name, summary, text]` of a 404 for a missing or foreign resource. */
export const missing = (what: string): Example => [`${what.replace(/\W/g, "")}NotFound`, `Unknown, foreign or malformed ${what.toLowerCase()} id`, notFound(what).detail];

/** The refusals of a list's `limit` and `cursor`. */
export const PAGE_ERRORS: Example[] = [
  ["badLimit", "`limit` not a whole number from 1 to 100", `limit: must be a whole number from 1 to ${MAX_PAGE_SIZE}`],
  ["badCursor", "A cursor this list did not return", "cursor: must be a cursor returned by this list"],
];

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
  "Access-Control-Allow-Origin": {
    description: "The request's `Origin`, when it is one of the chatbot's `allowed_origins` (absent for the server's own origin and for requests without one).",
    schema: { type: "string" },
  },
  Vary: { description: "Always `Origin`: the answer depends on the page that asked.", schema: { type: "string", const: "Origin" } },
};

/** Header sets: every answer carries X-Request-Id and Cache-Control; an admitted request adds the RateLimit trio. */
export const REQUEST_ID = ["X-Request-Id", "Cache-Control"];
export const ADMITTED = [...REQUEST_ID, "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"];
/** A widget route's answers: no key, so no RateLimit trio; CORS headers for an allowed origin. */
export const VISITOR_HEADERS = [...REQUEST_ID, "Access-Control-Allow-Origin", "Vary"];

/** The headers of a response, as references. */
export const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, ref("headers", name)]));

/** A response with a JSON body of one schema, its headers, and named examples. */
export function jsonResponse(description: string, schema: string, headerNames: string[], examples?: Record<string, { summary: string; value: unknown }>) {
  return { description, headers: headerRefs(headerNames), content: { "application/json": { schema: ref("schemas", schema), ...(examples ? { examples } : {}) } } };
}

/** An error response: `{detail}` with each example's exact text. */
export function errorResponse(description: string, headerNames: string[], examples: Array<[name: string, summary: string, detail: string]>) {
  return jsonResponse(description, "Error", headerNames, Object.fromEntries(examples.map(([name, summary, detail]) => [name, { summary, value: { detail } }])));
}

/** The refusals operations share, by component name. */
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
    [["keyRateLimit", "Per-key rate limit", details.keyRateLimited]],
  ),
  InternalError: errorResponse("An internal fault; the cause is in the server's log, never in the body.", ADMITTED, [["internal", "Internal fault", details.internal]]),
  AdminForbidden: errorResponse(
    "The key has the `chat` scope, or the `agent` scope on a route that is not about conversations (an agent key may list chatbots, work conversations and follow the live events). Checked before the body is read: nothing is stored.",
    ADMITTED,
    [
      ["chatScope", "A chat key on an admin route", details.forbidden],
      ["agentScope", "An agent key on a route for admin keys", details.agentForbidden],
    ],
  ),
  AdminKeyRateLimited: errorResponse(
    `More than ${DEFAULT_SETTINGS.adminKeyRequestsPerMinute} requests with this admin key in the last 60 seconds (the number is the configured \`PARLEY_ADMIN_KEY_RATE_LIMIT\`; RateLimit headers give the admin limit). A refused request is not counted.`,
    [...ADMITTED, "Retry-After"],
    [["adminKeyRateLimit", "Per-key rate limit of an admin key", details.adminKeyRateLimited]],
  ),
};

Object.assign(responses, {
  VisitorUnauthorized: errorResponse(
    "The `Authorization: Bearer <visitor token>` header is missing, or its token was altered, has expired (30 days) or belongs to another chatbot. Start a new session.",
    [...VISITOR_HEADERS, "WWW-Authenticate"],
    [["visitorToken", "Missing or invalid visitor token", details.visitorUnauthorized]],
  ),
  OriginForbidden: errorResponse(
    "The browser's `Origin` is neither the server's own nor one of the chatbot's `allowed_origins`. A request without `Origin` (not a browser) passes.",
    [...REQUEST_ID, "Vary"],
    [["origin", "A website the owner has not allowed", details.originRefused]],
  ),
  WidgetNotFound: errorResponse("The chatbot does not exist, is deleted, or has its widget off (all the same answer), or the id is not a UUID. Checked before the Origin: no CORS headers.", [...REQUEST_ID, "Vary"], [
    ["notFound", "No such public chatbot", details.notFound],
  ]),
  VisitorSessionsLimited: errorResponse(
    `More than ${DEFAULT_SETTINGS.widgetSessionsPerHour} new sessions from this client address in the last hour (\`PARLEY_WIDGET_SESSIONS_PER_HOUR\`; the address is the first \`X-Forwarded-For\` hop with \`PARLEY_TRUST_PROXY=true\`).`,
    [...VISITOR_HEADERS, "Retry-After"],
    [["sessionsLimit", "Too many new sessions", details.visitorSessionsLimited]],
  ),
  VisitorMessagesLimited: errorResponse(
    `Three refusals share this status: more than ${DEFAULT_SETTINGS.widgetMessagesPerMinute} widget messages from this client address in the last minute (\`PARLEY_WIDGET_MESSAGES_PER_MINUTE\`), the owner's monthly quota, and the per-conversation limit. Nothing is stored for a refused message.`,
    [...VISITOR_HEADERS, "Retry-After"],
    [
      ["messagesLimit", "Too many messages from this address", details.visitorMessagesLimited],
      ["quota", "The owner's monthly quota used up", details.quotaExceeded],
      ["conversationRateLimit", "Per-conversation rate limit", details.conversationRateLimited],
    ],
  ),
  VisitorInternalError: errorResponse("An internal fault, or the model provider failed (JSON answers); the cause is in the server's log.", VISITOR_HEADERS, [
    ["providerFailed", "Provider failure", details.providerFailed],
    ["internal", "Internal fault", details.internal],
  ]),
});

/** The refusals of reading a JSON body, for every endpoint that takes one. */
export const BODY_RESPONSES = {
  "400": errorResponse("The body is not valid JSON.", ADMITTED, [["invalidJson", "Not JSON", details.invalidJson]]),
  "413": errorResponse("The body exceeds 1 MiB (1,048,576 bytes). The server stops reading and closes the connection (`Connection: close`).", ADMITTED, [
    ["tooLarge", "Body too large", details.tooLarge],
  ]),
  "415": errorResponse("The Content-Type is not `application/json` (parameters such as `charset` are allowed).", ADMITTED, [
    ["unsupportedMediaType", "Wrong content type", details.unsupportedMediaType],
  ]),
};
