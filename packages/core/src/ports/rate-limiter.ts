/** The outcome of one {@link RateLimiter.hit}. */
export interface RateLimitDecision {
  /** Whether the hit was let through (and counted). Refused hits are not counted. */
  allowed: boolean;
  /** The limit the hit was checked against. */
  limit: number;
  /** Hits still allowed in the current window after this one. */
  remaining: number;
  /** Milliseconds until one more hit would be allowed (0 when one is allowed now). */
  retryAfterMs: number;
  /** Milliseconds until the window holds no counted hit any more. */
  resetMs: number;
}

/**
 * A sliding-window limiter: at most `limit` counted hits per `key` in any `windowMs`.
 * In-memory by default; a shared store (e.g. Redis) when several processes serve one database.
 */
export interface RateLimiter {
  /** Counts one hit for `key` if fewer than `limit` were counted in the last `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
}
