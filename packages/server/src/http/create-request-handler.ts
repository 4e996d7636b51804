import { invalidRequest, isParleyError, type Caller, type Parley, type RateLimitStatus } from "@parley/core";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createConsoleAssets, defaultConsoleRoot, isConsolePath } from "./console-assets.js";
import { HttpError, statusForCode } from "./http-error.js";
import { createRedactor } from "./redact.js";
import { checkScope, matchRoute, type Uploads } from "./routes.js";

/** Where the server writes its JSON log lines. */
export type LogSink = (line: Record<string, unknown>) => void;

/** A JSON-lines logger: access lines on stdout, warnings and faults on stderr (a CLI command's stdout stays its JSON). */
export const consoleLog: LogSink = (line) => {
  const text = `${JSON.stringify({ time: new Date().toISOString(), ...line })}\n`;
  (line.level === "error" || line.level === "warn" ? process.stderr : process.stdout).write(text);
};

/** An `x-request-id` the server echoes; any other value is replaced by a fresh UUID. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

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

/** Answers `GET /v1/admin/events` as a stream; resolves when the stream has ended. */
export type EventStreamHandler = (context: { caller: Caller; request: IncomingMessage; response: ServerResponse; headers: Record<string, string> }) => Promise<void>;

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
  /** Where uploaded files wait and the largest taken (default: none; an upload is refused). */
  uploads?: Uploads;
  /** The console's build folder (docs/design.md §11); default: `@parley/console`'s dist. */
  consoleRoot?: string;
}) {
  const uploads = options.uploads ?? NO_UPLOADS;
  const { parley } = options;
  const serveConsole = createConsoleAssets({ root: "consoleRoot" in options ? options.consoleRoot : defaultConsoleRoot() });
  const sink = options.log ?? consoleLog;
  const redact = createRedactor(options.secrets ?? []);
  const log: LogSink = (line) => sink(redact(line));

  /** The outcome to write, or null when a stream answered (and has ended). */
  async function handle(request: IncomingMessage, response: ServerResponse, requestId: string, path: string, search: string): Promise<Outcome | null> {
    const method = request.method ?? "GET";
    if (path === "/healthz") return method === "GET" ? outcome(200, { status: "ok" }, {}) : methodNotAllowed(["GET"]);
    const route = matchRoute(method, path);
    if (!route) return refusal(new HttpError(404, "Not found."), requestId);
    if (!route.handler && !route.stream) return methodNotAllowed(route.allowed);

    // docs/design.md §4 order: 401, then the per-key rate limit, then the body and the chatbot.
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
      checkScope(route.admin, caller);
      if (route.stream) {
        if (!options.streamEvents) throw new HttpError(404, "Not found.");
        // A stream is an answer like any other: it carries the request's id too.
        await options.streamEvents({ caller, request, response, headers: { "x-request-id": requestId, ...headers } });
        return null;
      }
      const result = await route.handler!({ parley, caller, request, params: route.params, query: new URLSearchParams(search), uploads });
      return outcome(result.status, result.body, headers, keyId);
    } catch (error) {
      const refused = refusal(error, requestId);
      return outcome(refused.status, refused.body, { ...headers, ...refused.headers }, keyId);
    }
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

  return function onRequest(request: IncomingMessage, response: ServerResponse): void {
    const started = performance.now();
    const offered = request.headers["x-request-id"];
    const requestId = typeof offered === "string" && REQUEST_ID_PATTERN.test(offered) ? offered : randomUUID();
    const url = request.url ?? "/";
    const query = url.indexOf("?");
    const path = query === -1 ? url : url.slice(0, query);
    if (isConsolePath(path)) {
      // The console's static files (docs/design.md §11): no key, their own headers.
      const status = serveConsole(request, response, path, { "x-request-id": requestId });
      return log({ level: "info", msg: "request", request_id: requestId, method: request.method, path, status, duration_ms: Math.round((performance.now() - started) * 100) / 100, key_id: null });
    }
    handle(request, response, requestId, path, query === -1 ? "" : url.slice(query + 1))
      .catch((error: unknown) => refusal(error, requestId))
      .then((outcome) => {
        if (outcome === null) {
          log({ level: "info", msg: "request", request_id: requestId, method: request.method, path, status: 200, duration_ms: Math.round(performance.now() - started), stream: true });
          return;
        }
        // 204 answers carry no body at all.
        const payload = outcome.status === 204 ? "" : JSON.stringify(outcome.body);
        response.writeHead(outcome.status, {
          ...(outcome.status === 204 ? {} : { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(payload) }),
          "x-request-id": requestId,
          // Answers carry system prompts and replies: no browser or proxy may keep a copy.
          "cache-control": "no-store",
          ...outcome.headers,
        });
        response.end(payload);
        log({
          level: "info",
          msg: "request",
          request_id: requestId,
          method: request.method,
          path,
          status: outcome.status,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          key_id: outcome.keyId ?? null,
        });
      });
  };
}

function methodNotAllowed(allowed: string[]): Outcome {
  return outcome(405, { detail: "Method not allowed." }, { allow: allowed.join(", ") });
}

/** The token of an `Authorization: Bearer <token>` header; undefined for any other shape. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
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
