import type { Clock } from "../ports/clock.js";
import type { RateLimitDecision, RateLimiter } from "../ports/rate-limiter.js";
import { microsToMillis } from "../support/time.js";

/**
 * An exact sliding-window limiter in process memory: it keeps the times of the hits it let
 * through (at most `limit` per key) and forgets them once they leave the window. Correct for
 * one process; several processes serving one database need a shared store instead.
 */
export function createMemoryRateLimiter(options: { clock: Clock }): RateLimiter {
  const hits = new Map<string, number[]>();
  let calls = 0;

  const sweep = (nowMs: number, windowMs: number) => {
    for (const [key, times] of hits) if (times.every((time) => time <= nowMs - windowMs)) hits.delete(key);
  };

  return {
    async hit(key, limit, windowMs): Promise<RateLimitDecision> {
      const nowMs = microsToMillis(options.clock.now());
      // Drop idle keys now and then, so memory stays bounded by the active keys.
      if (++calls % 1024 === 0) sweep(nowMs, windowMs);
      const recent = (hits.get(key) ?? []).filter((time) => time > nowMs - windowMs);
      const allowed = recent.length < limit;
      if (allowed) recent.push(nowMs);
      hits.set(key, recent);
      const oldest = recent[0];
      const expiresAt = (time: number | undefined) => (time === undefined ? 0 : Math.max(0, time + windowMs - nowMs));
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - recent.length),
        // With the window full, one more hit fits when the oldest counted hit leaves it.
        retryAfterMs: recent.length < limit ? 0 : expiresAt(oldest),
        resetMs: expiresAt(recent.at(-1)),
      };
    },
  };
}
