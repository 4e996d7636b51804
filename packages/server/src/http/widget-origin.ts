import type { IncomingMessage } from "node:http";
import { HttpError } from "./http-error.js";

// The Origin rule and CORS answers of the widget's public routes (docs/design.md §14).

/** The refusal of a page whose origin is neither the server's own nor one of the chatbot's allowed origins. */
export const ORIGIN_REFUSAL = "This website may not use this chatbot.";
/** What a preflight allows besides the route's methods: the token, JSON bodies, and resuming an event stream. */
const ALLOWED_HEADERS = "Authorization, Content-Type, Last-Event-ID";
/** Headers a cross-origin page may read: the wait of a 429, and the request's id. */
const EXPOSED_HEADERS = "Retry-After, X-Request-Id";
/** Every visitor answer depends on the Origin it was asked from. */
export const VARY_ORIGIN: Record<string, string> = { vary: "Origin" };

/**
 * The CORS headers of a visitor request, or a 403: no `Origin` (not a browser) and the server's
 * own origin (the widget frame) pass with none; one of `allowed` gets
 * `Access-Control-Allow-Origin: <it>`; any other is refused.
 */
export function corsHeaders(request: IncomingMessage, allowed: readonly string[]): Record<string, string> {
  const origin = request.headers.origin;
  if (origin === undefined || isOwnOrigin(origin, request.headers.host)) return VARY_ORIGIN;
  const wanted = origin.toLowerCase();
  if (!allowed.some((each) => each.toLowerCase() === wanted)) throw new HttpError(403, ORIGIN_REFUSAL, VARY_ORIGIN);
  return { "access-control-allow-origin": origin, "access-control-expose-headers": EXPOSED_HEADERS, vary: "Origin" };
}

/** The answer to a preflight `OPTIONS` of an admitted origin: the path's methods, the token and JSON. */
export function preflightHeaders(cors: Record<string, string>, allow: string): Record<string, string> {
  if (cors["access-control-allow-origin"] === undefined) return { ...cors, allow: `${allow}, OPTIONS` };
  return { ...cors, allow: `${allow}, OPTIONS`, "access-control-allow-methods": `${allow}, OPTIONS`, "access-control-allow-headers": ALLOWED_HEADERS, "access-control-max-age": "600" };
}

/** Whether `origin` is the origin of the `Host` the request was sent to (any scheme: TLS may end at a proxy). */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === "") return false;
  try {
    const url = new URL(origin);
    if (url.protocol !== "http:" && url.protocol !== "https:") return false;
    return new URL(`${url.protocol}//${host}`).host === url.host;
  } catch {
    return false;
  }
}

/** The client address the widget's limits count: the socket's, or the first `X-Forwarded-For` hop behind a trusted proxy. */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers["x-forwarded-for"];
    const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim();
    if (first) return first.slice(0, 100);
  }
  return request.socket.remoteAddress ?? "unknown";
}
