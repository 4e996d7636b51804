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

/** One hit of {@link RateLimiter.hitInOrder}: a key, its limit and its window. */
export interface RateLimitHit {
  key: string;
  limit: number;
  windowMs: number;
}

/**
 * A sliding-window limiter: at most `limit` counted hits per `key` in any `windowMs`.
 * In-memory by default; a shared store (e.g. Redis) when several processes serve one database.
 */
export interface RateLimiter {
  /** Counts one hit for `key` if fewer than `limit` were counted in the last `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitDecision>;
  /**
   * Counts `hits` in order, each as `hit` would, and stops at the first refused one: the
   * decisions of the hits tried (all of them allowed, or the last one refused). One step of a
   * shared store (a chat's per-key and per-conversation limits: one round trip).
   */
  hitInOrder(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]>;
}
