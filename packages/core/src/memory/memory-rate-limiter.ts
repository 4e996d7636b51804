import type { Clock } from "../ports/clock.js";
import type { RateLimitDecision, RateLimiter } from "../ports/rate-limiter.js";
import { microsToMillis } from "../support/time.js";

/** The hits a key has in its window: `times[head…]`, oldest first. */
interface Window {
  times: number[];
  head: number;
  /** The key's window: keys of different windows (a minute, an hour) share the map. */
  windowMs: number;
}

/**
 * An exact sliding-window limiter in process memory: it keeps the times of the hits it let
 * through (at most `limit` per key) and forgets them once they leave the window. Expired hits
 * are skipped by moving a head index, so a hit costs amortised O(1) even with a high limit.
 * Correct for one process; several processes serving one database need a shared store.
 */
export function createMemoryRateLimiter(options: { clock: Clock }): RateLimiter & { readonly keys: number } {
  const windows = new Map<string, Window>();
  let untilSweep = SWEEP_AT_LEAST;

  const expire = (window: Window, since: number) => {
    while (window.head < window.times.length && window.times[window.head]! <= since) window.head += 1;
    // Compact once the skipped part dominates, so memory stays proportional to the live hits.
    if (window.head > 64 && window.head * 2 > window.times.length) {
      window.times = window.times.slice(window.head);
      window.head = 0;
    }
  };

  const sweep = (nowMs: number) => {
    for (const [key, window] of windows) {
      expire(window, nowMs - window.windowMs);
      if (window.head === window.times.length) windows.delete(key);
    }
  };

  const limiter: RateLimiter & { readonly keys: number } = {
    async hitInOrder(hits) {
      const decisions: RateLimitDecision[] = [];
      for (const { key, limit, windowMs } of hits) {
        const decision = await limiter.hit(key, limit, windowMs);
        decisions.push(decision);
        if (!decision.allowed) break;
      }
      return decisions;
    },
    async hit(key, limit, windowMs): Promise<RateLimitDecision> {
      const nowMs = microsToMillis(options.clock.now());
      // Drop idle keys now and then, so memory stays bounded by the active keys: after as many
      // hits as there are keys (at least SWEEP_AT_LEAST), so a sweep visits one key a hit at most.
      if (--untilSweep === 0) {
        sweep(nowMs);
        untilSweep = Math.max(SWEEP_AT_LEAST, windows.size);
      }
      let window = windows.get(key);
      if (!window) windows.set(key, (window = { times: [], head: 0, windowMs }));
      window.windowMs = windowMs;
      expire(window, nowMs - windowMs);
      const allowed = window.times.length - window.head < limit;
      if (allowed) window.times.push(nowMs);
      const counted = window.times.length - window.head;
      return {
        allowed,
        limit,
        remaining: Math.max(0, limit - counted),
        // With the window full, one more hit fits when the oldest counted hit leaves it.
        retryAfterMs: counted < limit ? 0 : expiresIn(window.times[window.head], windowMs, nowMs),
        resetMs: expiresIn(window.times.at(-1), windowMs, nowMs),
      };
    },
    get keys() {
      return windows.size;
    },
  };
  return limiter;
}

/** The fewest hits between two sweeps of idle keys. */
const SWEEP_AT_LEAST = 1024;

/** Milliseconds until a hit made at `time` leaves its window (0 for none). */
const expiresIn = (time: number | undefined, windowMs: number, nowMs: number) => (time === undefined ? 0 : Math.max(0, time + windowMs - nowMs));
