import { invalidRequest, isParleyError, requireAdminScope, type Caller, type KeyedChatProgress, type Parley, type RateLimitStatus } from "@parley/core";
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerToken } from "./bearer-token.js";
import { createConsoleAssets, defaultConsoleRoot, isConsolePath } from "./console-assets.js";
import { createWidgetAssets, defaultWidgetRoot, isWidgetPath, type FindWidget } from "./widget-assets.js";
import type { EndpointContext, EventStreamHandler, KeyAccess, KeyedRequest, Uploads, Visitor, VisitorAccess, VisitorEventStreamHandler } from "./endpoint.js";
import { ENDPOINTS } from "./endpoints/index.js";
import { HttpError, statusForCode } from "./http-error.js";
import { isMultipart, readJsonBody } from "./read-json-body.js";
import { consoleLog, createAccessLog, type LogSink } from "./log-lines.js";
import { createRedactor } from "./redact.js";
import { requestIdOf } from "./request-id.js";
import { createRouter, paramsOf, queryOf, type Match, type Route } from "./router.js";
import { clientAddress, corsHeaders, preflightHeaders, VARY_ORIGIN } from "./widget-origin.js";

interface Outcome {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  keyId: string | undefined;
}

/**
 * Every outcome is built here, so all have one shape: object spreads of differently shaped
 * results made V8's property accesses megamorphic on every request (measured: ~8 µs a request).
 */
function outcome(status: number, body: unknown, headers: Record<string, string>, keyId?: string): Outcome {
  return { status, body, headers, keyId };
}

const NO_HEADERS: Record<string, string> = {};

/** The route table of every declared endpoint (endpoints/index.ts), built once. */
const match = createRouter(ENDPOINTS);

/** A handler given no upload store (a runtime always gives one) refuses uploads instead of losing them. */
const NO_UPLOADS: Uploads = {
  maxFileBytes: 25 * 1024 * 1024,
  store: {
    save: async () => Promise.reject(invalidRequest("files: this server stores no uploads")),
    read: async () => null,
    remove: async () => {},
  },
};

/** The node:http request listener of the Parley API. */
export function createRequestHandler(options: {
  parley: Parley;
  log?: LogSink;
  secrets?: readonly string[];
  streamEvents?: EventStreamHandler;
  /** A widget visitor session's live events (docs/design.md §14). */
  streamVisitorEvents?: VisitorEventStreamHandler;
  /** `PARLEY_TRUST_PROXY`: the widget's limits count the first `X-Forwarded-For` hop. */
  trustProxy?: boolean;
  /** Where uploaded files wait and the largest taken (default: none; an upload is refused). */
  uploads?: Uploads;
  /** The console's build folder (docs/design.md §11); default: `@parley/console`'s dist. */
  consoleRoot?: string;
  /** The chat widget's build folder (docs/design.md §14); default: `@parley/widget`'s dist. */
  widgetRoot?: string;
  /** A chatbot's allowed origins when its widget is on, else null (default: through `parley.widget`). */
  findWidget?: FindWidget;
  /** Called as each request starts, before any read (the runtime's `requestStarted`). */
  requestStarted?: () => void;
}) {
  const uploads = options.uploads ?? NO_UPLOADS;
  const { parley, streamEvents, streamVisitorEvents } = options;
  const trustProxy = options.trustProxy ?? false;
  const serveConsole = createConsoleAssets({ root: "consoleRoot" in options ? options.consoleRoot : defaultConsoleRoot() });
  const serveWidget = createWidgetAssets({
    root: "widgetRoot" in options ? options.widgetRoot : defaultWidgetRoot(),
    findWidget: options.findWidget ?? findWidgetOf(parley),
  });
  const sink = options.log ?? consoleLog;
  const redact = createRedactor(options.secrets ?? []);
  const log: LogSink = (line) => sink(redact(line));
  const logAccess = createAccessLog(sink, redact);

  /** The outcome to write, or null when a stream answered (and has ended). */
  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string, path: string, search: string): Promise<Outcome | null> {
    const found = match(path);
    if (!found) return refusal(new HttpError(404, "Not found."), requestId);
    const route = found.methods.get(request.method ?? "GET");
    if (!route) {
      if (request.method === "OPTIONS") {
        const visitorRoute = [...found.methods.values()].find((each) => each.endpoint.access.kind === "visitor");
        if (visitorRoute) return preflight(visitorRoute, found, request, requestId);
      }
      return outcome(405, { detail: "Method not allowed." }, { allow: found.allow });
    }
    const { access } = route.endpoint;
    if (access.kind === "visitor") return handleVisitor(route, access, found, request, response, requestId, search);
    if (access.kind === "public") {
      const answer = await route.endpoint.handle(contextOf(route, undefined, request, response, found.values, search, undefined, NO_HEADERS));
      return answer && outcome(answer.status, answer.body, NO_HEADERS);
    }

    if (access.inCore) return handleInCore(route, found, request, response, requestId, search);
    // docs/design.md §4 order: 401, then the per-key rate limit, then the scope, the body and the chatbot.
    let caller: Caller;
    try {
      caller = await parley.authenticate(bearerToken(request.headers.authorization));
    } catch (error) {
      return refusal(error, requestId);
    }
    const keyId = caller.apiKey.id;
    let headers: Record<string, string>;
    try {
      headers = rateLimitHeaders(await parley.admitRequest(caller));
    } catch (error) {
      const refused = refusal(error, requestId);
      return outcome(refused.status, refused.body, refused.headers, keyId);
    }
    try {
      checkScope(access, caller);
      const body = route.validate && !(route.endpoint.body!.uploads && isMultipart(request)) ? route.validate(await readJsonBody(request)) : undefined;
      // A stream is an answer like any other: it carries the request's id too.
      const streamHeaders = route.endpoint.success.stream ? { "x-request-id": requestId, ...headers } : headers;
      const answer = await route.endpoint.handle(contextOf(route, caller, request, response, found.values, search, body, streamHeaders));
      return answer && outcome(answer.status, answer.body, headers, keyId);
    } catch (error) {
      const refused = refusal(error, requestId);
      return outcome(refused.status, refused.body, { ...headers, ...refused.headers }, keyId);
    }
  }

  /**
   * A key route whose core operation checks the key (`inCore`): it gets the token, the body to
   * read and a progress it fills, from which the answer, refused or not, takes the key's id and
   * its RateLimit-* headers exactly as `handle` gives them.
   */
  async function handleInCore(route: Route, found: Match, request: IncomingMessage, response: ServerResponse, requestId: string, search: string): Promise<Outcome | null> {
    const progress: KeyedChatProgress = {};
    const validate = route.validate ?? ((body: unknown) => body);
    const keyed = { token: bearerToken(request.headers.authorization), readBody: async () => validate(await readJsonBody(request)), progress };
    try {
      const answer = await route.endpoint.handle(contextOf(route, undefined, request, response, found.values, search, undefined, NO_HEADERS, keyed));
      return answer && outcome(answer.status, answer.body, rateLimitHeaders(progress.rateLimit!), progress.caller?.apiKey.id);
    } catch (error) {
      const refused = refusal(error, requestId);
      const headers = progress.rateLimit === undefined ? refused.headers : { ...rateLimitHeaders(progress.rateLimit), ...refused.headers };
      return outcome(refused.status, refused.body, headers, progress.caller?.apiKey.id);
    }
  }

  /**
   * A widget route (docs/design.md §14): the chatbot with its widget on (404), the Origin rule
   * (403; CORS headers from here on, refusals included), the visitor token (401), the client
   * address's limit (429), the body (422), then the handler.
   */
  async function handleVisitor(
    route: Route,
    access: VisitorAccess,
    found: Match,
    request: IncomingMessage,
    response: ServerResponse,
    requestId: string,
    search: string,
  ): Promise<Outcome | null> {
    let cors = VARY_ORIGIN;
    try {
      const params = paramsOf(route, found.values);
      const widget = await parley.widget.find(params.chatbot_id ?? "");
      cors = corsHeaders(request, widget.widget.allowed_origins);
      const sessionId = access.session ? parley.widget.session(widget, bearerToken(request.headers.authorization)) : "";
      const address = clientAddress(request, trustProxy);
      if (access.limit) await parley.widget.admit(address, access.limit);
      const body = route.validate ? route.validate(await readJsonBody(request)) : undefined;
      const visitor: Visitor = { widget, sessionId, address };
      const headers = route.endpoint.success.stream ? { "x-request-id": requestId, ...cors } : cors;
      const context = { ...contextOf(route, undefined, request, response, found.values, search, body, headers), caller: visitor };
      const answer = await route.endpoint.handle(context);
      return answer && outcome(answer.status, answer.body, cors);
    } catch (error) {
      const refused = refusal(error, requestId);
      return outcome(refused.status, refused.body, { ...cors, ...refused.headers });
    }
  }

  /** A browser's preflight of a widget route: 204 with the CORS answers for an allowed origin, the route's refusals otherwise. */
  async function preflight(route: Route, found: Match, request: IncomingMessage, requestId: string): Promise<Outcome> {
    try {
      const widget = await parley.widget.find(paramsOf(route, found.values).chatbot_id ?? "");
      return outcome(204, null, preflightHeaders(corsHeaders(request, widget.widget.allowed_origins), found.allow));
    } catch (error) {
      return refusal(error, requestId);
    }
  }

  /** What a handler gets: one object of one shape for every route. */
  function contextOf(
    route: Route,
    caller: Caller | undefined,
    request: IncomingMessage,
    response: ServerResponse,
    values: string[],
    search: string,
    body: unknown,
    headers: Record<string, string>,
    keyed?: KeyedRequest,
  ): EndpointContext<string, unknown, Caller> {
    return { parley, caller: caller!, request, response, params: paramsOf(route, values), query: queryOf(route, search), body, uploads, headers, streamEvents, streamVisitorEvents, keyed };
  }

  /** The answer to an error: its status, `{detail}` and headers. Faults are logged, never shown. */
  function refusal(error: unknown, requestId: string): Outcome {
    if (error instanceof HttpError) return outcome(error.status, { detail: error.detail }, error.headers);
    if (!isParleyError(error)) {
      log({ level: "error", msg: "unexpected fault", request_id: requestId, error: describeError(error) });
      return outcome(500, { detail: "Internal server error." }, {});
    }
    const status = statusForCode(error.code);
    const headers: Record<string, string> = {};
    if (error.code === "unauthorized") headers["www-authenticate"] = "Bearer";
    if (error.rateLimit) Object.assign(headers, rateLimitHeaders(error.rateLimit));
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    if (status !== 500) return outcome(status, { detail: error.detail }, headers);
    log({ level: "error", msg: "request failed", request_id: requestId, code: error.code, error: describeError(error) });
    return outcome(status, { detail: error.code === "provider_failed" ? error.detail : "Internal server error." }, headers);
  }

  const requestStarted = options.requestStarted ?? (() => {});

  return function onRequest(request: IncomingMessage, response: ServerResponse): void {
    requestStarted();
    const started = performance.now();
    const requestId = requestIdOf(request);
    const url = request.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (isConsolePath(path)) {
      // The console's static files (docs/design.md §11): no key, their own headers.
      const status = serveConsole(request, response, path, { "x-request-id": requestId });
      return logAccess(requestId, request.method, path, status, Math.round((performance.now() - started) * 100) / 100, null);
    }
    if (isWidgetPath(path)) {
      // The chat widget's loader and frame (docs/design.md §14): no key, their own headers.
      void serveWidget(request, response, path, { "x-request-id": requestId })
        .catch((error: unknown) => {
          const refused = refusal(error, requestId);
          response.writeHead(refused.status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", "x-request-id": requestId });
          response.end(JSON.stringify(refused.body));
          return refused.status;
        })
        .then((status) => logAccess(requestId, request.method, path, status, Math.round((performance.now() - started) * 100) / 100, null));
      return;
    }
    void answer(request, response, requestId, path, query === -1 ? "" : url.slice(query + 1), started);
  };

  /** Handles one API request and writes its outcome, then its access line. */
  async function answer(request: IncomingMessage, response: ServerResponse, requestId: string, path: string, search: string, started: number): Promise<void> {
    let result: Outcome | null;
    try {
      result = await handle(request, response, requestId, path, search);
    } catch (error) {
      result = refusal(error, requestId);
    }
    if (result === null) {
      log({ level: "info", msg: "request", request_id: requestId, method: request.method, path, status: 200, duration_ms: Math.round(performance.now() - started), stream: true });
      return;
    }
    // 204 answers carry no body at all.
    const payload = result.status === 204 ? "" : JSON.stringify(result.body);
    response.writeHead(result.status, headLines(result, requestId, payload));
    response.end(payload);
    logAccess(requestId, request.method, path, result.status, Math.round((performance.now() - started) * 100) / 100, result.keyId ?? null);
  }
}

/**
 * An answer's headers as node:http's flat `[name, value, …]` list: content type and length (none
 * on a 204), the request's id, `no-store` (answers carry system prompts and replies: no browser or
 * proxy may keep a copy), then the outcome's own, each replacing a fixed one of the same name.
 * A list, not an object: spreading objects of varying shapes into one literal took V8's slow
 * paths (measured: ~8 % of the list route's CPU), and node:http walks a list without `for…in`.
 */
function headLines(result: Outcome, requestId: string, payload: string): (string | number)[] {
  const lines: (string | number)[] =
    result.status === 204
      ? ["x-request-id", requestId, "cache-control", "no-store"]
      : ["content-type", "application/json; charset=utf-8", "content-length", Buffer.byteLength(payload), "x-request-id", requestId, "cache-control", "no-store"];
  const fixed = lines.length;
  for (const name in result.headers) {
    let at = 0;
    while (at < fixed && lines[at] !== name) at += 2;
    if (at < fixed) lines[at + 1] = result.headers[name]!;
    else lines.push(name, result.headers[name]!);
  }
  return lines;
}

/** A chatbot's allowed origins when its widget is on; null for a missing, deleted or widget-off one. */
function findWidgetOf(parley: Parley): FindWidget {
  return async (chatbotId) => {
    try {
      return (await parley.widget.find(chatbotId)).widget.allowed_origins;
    } catch (error) {
      if (isParleyError(error) && error.code === "not_found") return null;
      throw error;
    }
  };
}

/**
 * Who may call, checked before any body is read: a key of a scope the route does not list gets
 * the core's 403 for its scope (today the one refusal: a chat key on an admin route).
 */
function checkScope(access: KeyAccess, caller: Caller): void {
  if (access.scopes.includes(caller.apiKey.scope)) return;
  requireAdminScope(caller);
  throw new HttpError(403, "This API key may not call this route.");
}

function rateLimitHeaders(status: RateLimitStatus): Record<string, string> {
  return {
    "ratelimit-limit": String(status.limit),
    "ratelimit-remaining": String(status.remaining),
    "ratelimit-reset": String(status.resetSeconds),
  };
}

/** An error for the log: name, message, code, status and stack, with its causes; never a request body. */
function describeError(error: unknown, depth = 0): Record<string, unknown> {
  if (!(error instanceof Error)) return { value: String(error) };
  const facts = error as Error & { code?: unknown; status?: unknown; upstreamStatus?: unknown };
  return {
    name: error.name,
    message: error.message,
    ...(facts.code === undefined ? {} : { code: facts.code }),
    ...(facts.upstreamStatus === undefined ? {} : { upstream_status: facts.upstreamStatus }),
    stack: error.stack,
    ...(error.cause !== undefined && depth < 3 ? { cause: describeError(error.cause, depth + 1) } : {}),
  };
}
