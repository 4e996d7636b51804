import type { FailureFacts } from "./call-with-retries.js";

/** Error codes of Node's sockets and undici that mean the connection failed or broke. */
const TRANSIENT_NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
]);

/**
 * Classifies an error thrown by one of the SDKs. The Stainless SDKs (openai, anthropic) put the
 * status on `status` and the response headers on `headers`; ollama's ResponseError uses
 * `status_code` and keeps no headers. Connection failures are recognised by
 * `isConnectionError` (the SDK's own class) or by a network code anywhere in the cause chain.
 */
export function describeUpstreamFailure(error: unknown, isConnectionError: (error: unknown) => boolean = () => false): FailureFacts {
  const status = upstreamStatusOf(error);
  if (status !== undefined) {
    const retryable = status === 408 || status === 429 || status >= 500;
    const retryAfterMs = retryable ? retryAfterMsOf(error) : undefined;
    return retryAfterMs === undefined ? { retryable, upstreamStatus: status } : { retryable, upstreamStatus: status, retryAfterMs };
  }
  return { retryable: isConnectionError(error) || hasTransientNetworkCode(error) };
}

function upstreamStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { status, status_code: statusCode } = error as { status?: unknown; status_code?: unknown };
  if (typeof status === "number") return status;
  if (typeof statusCode === "number") return statusCode;
  return undefined;
}

/** `retry-after-ms` (OpenAI's) or `retry-after` in seconds or as an HTTP date. */
export function retryAfterMsOf(error: unknown, now: number = Date.now()): number | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (!(headers instanceof Headers)) return undefined;
  const milliseconds = Number.parseFloat(headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = headers.get("retry-after")?.trim();
  if (retryAfter === undefined || retryAfter === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Number.parseFloat(retryAfter) * 1000;
  const date = Date.parse(retryAfter);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function hasTransientNetworkCode(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && typeof current === "object" && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && TRANSIENT_NETWORK_CODES.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
