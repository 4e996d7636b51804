import { DEFAULT_PAGE_SIZE, DEFAULT_SETTINGS, DELIVERY_STATUSES, MAX_PAGE_SIZE, notFound, rateLimited, requireAdminScope, type Caller } from "@parley/core";
import { ADMITTED, chatResponses, details, errorResponse, ref, REQUEST_ID } from "./openapi-components.js";

type Example = [name: string, summary: string, detail: string];

/** The detail of the error `refuse` throws, so the document quotes the code's own words. */
export function detailOf(refuse: () => unknown): string {
  try {
    refuse();
  } catch (error) {
    if (typeof (error as { detail?: unknown }).detail === "string") return (error as { detail: string }).detail;
  }
  throw new Error("expected a refusal");
}

/** Exact detail texts of the operator API, taken from the core and the validators. */
export const adminDetails = {
  forbidden: detailOf(() => requireAdminScope({ apiKey: { scope: "chat" } } as Caller)),
  adminKeyRateLimited: rateLimited({ limit: DEFAULT_SETTINGS.adminKeyRequestsPerMinute, remaining: 0, resetSeconds: 60 }, 60).detail,
  limit: `limit: must be a whole number from 1 to ${MAX_PAGE_SIZE}`,
  cursor: "cursor: must be a cursor returned by this list",
  notFound: (what: string) => notFound(what).detail,
};

/** The `[name, summary, text]` of a 404 for a missing or foreign resource. */
export const missing = (what: string): Example => [`${what.replace(/\W/g, "")}NotFound`, `Unknown, foreign or malformed ${what.toLowerCase()} id`, adminDetails.notFound(what)];
export const PAGE_ERRORS: Example[] = [
  ["badLimit", "`limit` not a whole number from 1 to 100", adminDetails.limit],
  ["badCursor", "A cursor this list did not return", adminDetails.cursor],
];

const pathId = (name: string, what: string) => ({
  name,
  in: "path",
  required: true,
  description: `The ${what}'s id (a UUID). A malformed, unknown or another user's id is answered 404.`,
  schema: { type: "string" },
});
const query = (name: string, description: string, schema: object) => ({ name, in: "query", required: false, description, schema });

/** The operator API's parameters. */
export const adminParameters = {
  DocumentId: pathId("document_id", "document"),
  IngestionId: pathId("ingestion_id", "ingestion"),
  ConversationId: pathId("conversation_id", "conversation"),
  KeyId: pathId("key_id", "API key"),
  WebhookId: pathId("webhook_id", "webhook subscription"),
  DeliveryId: pathId("delivery_id", "delivery"),
  SessionId: { name: "session_id", in: "path", required: true, description: "The `session_id` the integration sends to chat (percent-encoded).", schema: { type: "string", minLength: 1, maxLength: 255 } },
  Limit: query("limit", `Items per page, 1–${MAX_PAGE_SIZE} (default ${DEFAULT_PAGE_SIZE}).`, { type: "integer", minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE }),
  Cursor: query(
    "cursor",
    "The `next_cursor` of the previous page: opaque, valid for this list only. A keyset position, so pages stay correct while new rows arrive at the top.",
    { type: "string" },
  ),
  ChatbotFilter: query("chatbot_id", "Only this chatbot's conversations (404 `Chatbot not found.` for an unknown or foreign one).", { type: "string" }),
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

/** The operator API's shared refusals. */
export const adminResponses = {
  AdminForbidden: errorResponse("The key has the `chat` scope. Checked before the body is read: nothing is stored.", ADMITTED, [["chatScope", "A chat key on an admin route", adminDetails.forbidden]]),
  AdminKeyRateLimited: errorResponse(
    `More than ${DEFAULT_SETTINGS.adminKeyRequestsPerMinute} requests with this admin key in the last 60 seconds (the number is the configured \`PARLEY_ADMIN_KEY_RATE_LIMIT\`; RateLimit headers give the admin limit). A refused request is not counted.`,
    [...ADMITTED, "Retry-After"],
    [["adminKeyRateLimit", "Per-key rate limit of an admin key", adminDetails.adminKeyRateLimited]],
  ),
};

/** What one operation of the operator API is: its words, parameters, body and answers. */
export interface AdminOperationSpec {
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  parameters?: string[];
  /** The request body's schema component and one example value. */
  body?: [schema: string, example: unknown];
  /** The success status, its description and its schema component (none for 204). */
  success: [status: "200" | "201" | "202" | "204", description: string, schema?: string];
  notFound?: Example[];
  invalid?: Example[];
  /** Without the admin scope check (the session messages route takes any key). */
  anyKey?: boolean;
}

/** An OpenAPI operation of the operator API, with the refusals every admin route shares. */
export function adminOperation(spec: AdminOperationSpec) {
  const [status, description, schema] = spec.success;
  const success = schema ? { description, headers: headerRefs(ADMITTED), content: { "application/json": { schema: ref("schemas", schema) } } } : { description, headers: headerRefs(ADMITTED) };
  const invalid = [...(spec.invalid ?? []), ...(spec.body ? [["notAnObject", "Body is not a JSON object", details.notAnObject] as Example] : [])];
  const responses: Record<string, unknown> = { [status]: success };
  if (spec.body) Object.assign(responses, { "400": chatResponses["400"], "413": chatResponses["413"], "415": chatResponses["415"] });
  responses["401"] = ref("responses", "Unauthorized");
  if (!spec.anyKey) responses["403"] = ref("responses", "AdminForbidden");
  if (spec.notFound) responses["404"] = errorResponse("A missing, deleted or another user's resource, or a malformed id.", ADMITTED, spec.notFound);
  if (invalid.length > 0) responses["422"] = errorResponse("Invalid input: `detail` names the field and the problem.", ADMITTED, invalid);
  responses["429"] = ref("responses", spec.anyKey ? "KeyRateLimited" : "AdminKeyRateLimited");
  responses["500"] = ref("responses", "InternalError");
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    description: spec.description,
    tags: [spec.tag],
    parameters: [...(spec.parameters ?? []).map((name) => ref("parameters", name)), ref("parameters", "RequestId")],
    ...(spec.body
      ? { requestBody: { required: true, content: { "application/json": { schema: ref("schemas", spec.body[0]), examples: { example: { summary: "A body", value: spec.body[1] } } } } } }
      : {}),
    responses,
  };
}

function headerRefs(names: string[]) {
  return Object.fromEntries(names.map((name) => [name, ref("headers", name)]));
}

export { REQUEST_ID };
