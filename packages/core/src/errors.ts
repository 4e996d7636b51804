/**
 * The stable codes of Parley's errors. The server maps each to an HTTP status in one place;
 * nothing in the core knows a status code.
 */
export type ErrorCode =
  | "unauthorized"
  | "not_found"
  | "chatbot_paused"
  | "forbidden"
  | "rate_limited"
  | "quota_exceeded"
  | "conversation_rate_limited"
  | "invalid_request"
  | "conflict"
  | "embedder_mismatch"
  | "provider_failed"
  | "unavailable"
  | "internal";

/** The state of a rate limit, for the `RateLimit-*` headers. */
export interface RateLimitStatus {
  limit: number;
  remaining: number;
  /** Seconds until the window is empty again. */
  resetSeconds: number;
}

/** Extra facts an error carries for the edge (headers) and the log. */
export interface ErrorFacts {
  /** The per-key rate limit after this request, for the `RateLimit-*` headers. */
  rateLimit?: RateLimitStatus;
  /** Seconds until retrying can succeed, for `Retry-After`. */
  retryAfterSeconds?: number;
  /** Upstream HTTP status, for the log only. */
  upstreamStatus?: number;
  /** Whether the upstream failure was transient, for the log only. */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * The one error type of Parley. `detail` is safe to show the caller: it never holds a secret,
 * a stack or upstream text. The cause is for the log.
 */
export class ParleyError extends Error {
  override readonly name = "ParleyError";
  readonly code: ErrorCode;
  readonly detail: string;
  readonly retryAfterSeconds: number | undefined;
  readonly rateLimit: RateLimitStatus | undefined;
  readonly upstreamStatus: number | undefined;
  readonly retryable: boolean | undefined;

  constructor(code: ErrorCode, detail: string, facts: ErrorFacts = {}) {
    super(detail, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.code = code;
    this.detail = detail;
    this.retryAfterSeconds = facts.retryAfterSeconds;
    this.rateLimit = facts.rateLimit;
    this.upstreamStatus = facts.upstreamStatus;
    this.retryable = facts.retryable;
  }
}

/** Whether a value is a ParleyError, optionally of one code. */
export function isParleyError(error: unknown, code?: ErrorCode): error is ParleyError {
  return error instanceof ParleyError && (code === undefined || error.code === code);
}

/** Missing, malformed, unknown or revoked API key. */
export const unauthorized = () => new ParleyError("unauthorized", "Invalid or missing API key.");

/** A chatbot that does not exist, is deleted, belongs to someone else, or a malformed id. */
export const chatbotNotFound = () => new ParleyError("not_found", "Chatbot not found.");

/** Any other missing resource, named in the detail. */
export const notFound = (what: string) => new ParleyError("not_found", `${what} not found.`);

/** The key is valid but may not do this (a chat key on the operator API). */
export const forbidden = (detail: string) => new ParleyError("forbidden", detail);

/** Chat with a chatbot its owner has paused. */
export const chatbotPaused = () => new ParleyError("chatbot_paused", "Chatbot is paused by its owner.");

/** The per-key request rate was exceeded. */
export const rateLimited = (rateLimit: RateLimitStatus, retryAfterSeconds: number) =>
  new ParleyError("rate_limited", `API rate limit exceeded. Maximum ${rateLimit.limit} requests per minute.`, {
    retryAfterSeconds,
    rateLimit,
  });

/** The per-conversation message rate was exceeded. */
export const conversationRateLimited = (limit: number, retryAfterSeconds: number) =>
  new ParleyError(
    "conversation_rate_limited",
    `Conversation rate limit exceeded. Maximum ${limit} messages per minute in one conversation.`,
    { retryAfterSeconds },
  );

/** The plan's monthly message quota is used up; says the plan, the limit and the reset date. */
export const quotaExceeded = (plan: string, limit: number, resetsAt: string, retryAfterSeconds: number) =>
  new ParleyError(
    "quota_exceeded",
    `Monthly message limit reached: the ${plan} plan allows ${limit} messages per month. The limit resets on ${resetsAt}.`,
    { retryAfterSeconds },
  );

/** Input of the wrong shape; the detail names the field and the problem. */
export const invalidRequest = (detail: string) => new ParleyError("invalid_request", detail);

/** A uniqueness rule was broken (e.g. an email already in use). */
export const conflict = (detail: string) => new ParleyError("conflict", detail);

/** The LLM provider failed; the detail says nothing of the upstream failure. */
export const providerFailed = (facts: ErrorFacts = {}) =>
  new ParleyError("provider_failed", "The language model provider failed to answer.", facts);

/** A chatbot's vectors were made by another embedder than the one configured. */
export const embedderMismatch = (chatbotId: string, indexed: string, configured: string) =>
  new ParleyError(
    "embedder_mismatch",
    `Chatbot ${chatbotId} is indexed with embedder ${indexed}, but the configured embedder is ${configured}. Reindex the chatbot.`,
  );

/** A shared service Parley needs (e.g. the rate limiters' Redis) cannot be reached; retrying later can succeed. */
export const serviceUnavailable = (what: string, cause?: unknown) =>
  new ParleyError("unavailable", `${what} is unavailable. Try again shortly.`, { retryAfterSeconds: 1, cause });

/** An unexpected fault; the detail is generic. */
export const internalError = (cause?: unknown) => new ParleyError("internal", "Internal server error.", { cause });
