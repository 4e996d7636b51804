import type { ErrorCode } from "@parley/core";

/** A refusal decided by the HTTP layer itself (route, method, body), before the core is called. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/**
 * The one place that maps the core's error codes to HTTP statuses. Codes that mean a fault on
 * our side answer a generic 500 (the cause goes to the log, never to the caller).
 */
export function statusForCode(code: ErrorCode): number {
  switch (code) {
    case "unauthorized":
      return 401;
    case "chatbot_paused":
    case "forbidden":
      return 403;
    case "not_found":
      return 404;
    case "conflict":
      return 409;
    case "invalid_request":
      return 422;
    case "rate_limited":
    case "quota_exceeded":
    case "conversation_rate_limited":
      return 429;
    case "unavailable":
      return 503;
    case "provider_failed":
    case "embedder_mismatch":
    case "internal":
      return 500;
  }
}
