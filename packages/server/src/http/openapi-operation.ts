import type { Endpoint, Example, RefusalDeclaration, SuccessDeclaration } from "./endpoint.js";
import { ADMITTED, BODY_RESPONSES, details, errorResponse, headerRefs, jsonResponse, ref, REQUEST_ID, VISITOR_HEADERS } from "./openapi-components.js";
import { PATH_PARAMETERS } from "./openapi-parameters.js";
import { compileBody } from "./validators.js";

/** A visitor route's body refusals carry the CORS headers, not the RateLimit ones. */
const VISITOR_BODY_RESPONSES = Object.fromEntries(
  Object.entries(BODY_RESPONSES).map(([status, response]) => [status, { ...response, headers: headerRefs(VISITOR_HEADERS) }]),
);

// An endpoint's OpenAPI operation, derived from its declaration: the refusals every route of its
// access kind shares, those of reading its body, its own, and its success.

/** The OpenAPI operation of a declared endpoint. */
export function operationOf(endpoint: Endpoint) {
  const resolve = exampleResolver(endpoint);
  const headers = endpoint.access.kind === "public" ? REQUEST_ID : endpoint.access.kind === "visitor" ? VISITOR_HEADERS : ADMITTED;
  const responses: Record<string, unknown> = { [endpoint.success.status]: successResponse(endpoint.success, headers), ...accessResponses(endpoint) };
  if (endpoint.body) Object.assign(responses, endpoint.access.kind === "visitor" ? VISITOR_BODY_RESPONSES : BODY_RESPONSES);
  if (endpoint.notFound) responses["404"] = notFoundResponse(endpoint, endpoint.notFound, resolve);
  const invalid = [...(endpoint.invalid ?? []), ...(endpoint.body ? [["notAnObject", "Body is not a JSON object", { refused: [] }] as Example] : [])];
  const refusalHeaders = endpoint.access.kind === "visitor" ? VISITOR_HEADERS : ADMITTED;
  if (invalid.length > 0) responses["422"] = refusal({ description: "Invalid input: `detail` names the field and the problem.", refusals: invalid }, resolve, undefined, refusalHeaders);
  for (const [status, declared] of Object.entries(endpoint.responses ?? {})) {
    if (typeof declared === "string") responses[status] = ref("responses", declared);
    else if ("refusals" in declared!) responses[status] = refusal(declared, resolve, Number(status), endpoint.access.kind === "visitor" ? VISITOR_HEADERS : ADMITTED);
    else responses[status] = successResponse({ ...declared!, status: Number(status) as SuccessDeclaration["status"] }, headers);
  }
  return {
    operationId: endpoint.operationId,
    summary: endpoint.summary,
    description: endpoint.description,
    tags: [endpoint.tag.name],
    ...(endpoint.access.kind === "public" || (endpoint.access.kind === "visitor" && !endpoint.access.session) ? { security: [] } : {}),
    ...(endpoint.access.kind === "visitor" && endpoint.access.session ? { security: [{ visitorToken: [] }] } : {}),
    parameters: [...pathParameters(endpoint.path), ...(endpoint.parameters ?? []), "RequestId"].map((name) => ref("parameters", name)),
    ...(endpoint.body ? { requestBody: requestBodyOf(endpoint.body) } : {}),
    responses,
  };
}

/** The refusals of the endpoint's access kind: who may call it decides 401, 403, 429 and 500. */
function accessResponses(endpoint: Endpoint): Record<string, unknown> {
  if (endpoint.access.kind === "public") return {};
  if (endpoint.access.kind === "visitor") {
    const { session, limit } = endpoint.access;
    return {
      ...(session ? { "401": ref("responses", "VisitorUnauthorized") } : {}),
      "403": ref("responses", "OriginForbidden"),
      "404": ref("responses", "WidgetNotFound"),
      ...(limit === "sessions" ? { "429": ref("responses", "VisitorSessionsLimited") } : limit === "messages" ? { "429": ref("responses", "VisitorMessagesLimited") } : {}),
      ...(endpoint.success.stream && !endpoint.success.schema ? {} : { "500": ref("responses", "VisitorInternalError") }),
    };
  }
  const anyKey = endpoint.access.scopes.includes("chat");
  return {
    "401": ref("responses", "Unauthorized"),
    ...(anyKey ? {} : { "403": ref("responses", "AdminForbidden") }),
    "429": ref("responses", anyKey ? "KeyRateLimited" : "AdminKeyRateLimited"),
    // A stream's faults after its head are not answers; a JSON route answers 500 for them.
    ...(endpoint.success.stream ? {} : { "500": ref("responses", "InternalError") }),
  };
}

function successResponse(success: SuccessDeclaration, headers: string[]) {
  if (success.stream && success.schema) {
    // Either answer, by the request's Accept header.
    const json = jsonResponse(success.description, success.schema, headers, success.examples);
    return { ...json, content: { ...json.content, "text/event-stream": { schema: { type: "string", description: success.stream.description }, examples: success.stream.examples } } };
  }
  if (success.stream) {
    return {
      description: success.description,
      headers: headerRefs(headers),
      content: { "text/event-stream": { schema: { type: "string", description: success.stream.description }, examples: success.stream.examples } },
    };
  }
  if (!success.schema) return { description: success.description, headers: headerRefs(headers) };
  return jsonResponse(success.description, success.schema, headers, success.examples);
}

/**
 * A route's 404 when it has refusals of its own. A visitor route keeps the widget's own 404 among
 * them (a chatbot without a public widget, answered before the Origin check: no CORS or RateLimit
 * headers), so the headers are those both answers carry.
 */
function notFoundResponse(endpoint: Endpoint, own: Example[], resolve: (example: Example) => [string, string, string]) {
  if (endpoint.access.kind !== "visitor") return refusal({ description: "A missing, deleted or another user's resource, or a malformed id.", refusals: own }, resolve);
  const description = "The chatbot does not exist, is deleted or has its widget off, or an id is not a UUID; or the resource named is not the session's.";
  return refusal({ description, refusals: [["notFound", "No such public chatbot", details.notFound], ...own] }, resolve, 404, [...REQUEST_ID, "Vary"]);
}

function refusal(declared: RefusalDeclaration, resolve: (example: Example) => [string, string, string], status?: number, base: string[] = ADMITTED) {
  const headers = status === 429 ? [...base, "Retry-After"] : base;
  return errorResponse(declared.description, headers, declared.refusals.map(resolve));
}

function requestBodyOf(body: NonNullable<Endpoint["body"]>) {
  const json = { schema: ref("schemas", body.name), examples: body.examples };
  return {
    required: true,
    ...(body.description ? { description: body.description } : {}),
    content: { "application/json": json, ...(body.uploads ? { "multipart/form-data": { schema: body.uploads } } : {}) },
  };
}

function pathParameters(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => {
    const name = PATH_PARAMETERS[match[1]!];
    if (!name) throw new Error(`no parameter component for {${match[1]}} in ${path}`);
    return name;
  });
}

/**
 * An example's text: written out, or the detail the endpoint's own validator gives a refused
 * body, so the document quotes the validator's words.
 */
function exampleResolver(endpoint: Endpoint): (example: Example) => [string, string, string] {
  let validate: ((body: unknown) => unknown) | undefined;
  return ([name, summary, detail]) => {
    if (typeof detail === "string") return [name, summary, detail];
    validate ??= compileBody(endpoint.body!);
    try {
      validate(detail.refused);
    } catch (error) {
      return [name, summary, (error as { detail: string }).detail];
    }
    throw new Error(`${endpoint.operationId}: the example body ${JSON.stringify(detail.refused)} passes validation`);
  };
}
