import { createHash } from "node:crypto";
import { serviceUnavailable, type Clock, type RateLimitDecision, type RateLimiter } from "@parley/core";
import { SLIDING_WINDOW_SCRIPT } from "./sliding-window-script.js";

/** The two commands the limiter needs, as node-redis's client has them. */
export interface RedisScripting {
  evalSha(sha1: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
  eval(script: string, options: { keys: string[]; arguments: string[] }): Promise<unknown>;
}

/** How to build a Redis rate limiter. */
export interface RedisRateLimiterOptions {
  client: RedisScripting;
  /** Prepended to every key, so several deployments (or tests) can share one Redis. */
  prefix?: string;
  /**
   * Tests only: a clock whose time is sent to the script. Absent (production), the script reads
   * Redis's clock, so processes on machines whose clocks drift still share one window.
   */
  clock?: Clock;
  /**
   * When Redis cannot be reached: `false` (the default) refuses the request with the
   * `unavailable` error (503), never letting traffic through unlimited; `true` lets it through
   * and reports it to `onFailure`.
   */
  failOpen?: boolean;
  /** Told of every failure to reach Redis (for the log). */
  onFailure?: (error: unknown) => void;
}

const SCRIPT_SHA1 = createHash("sha1").update(SLIDING_WINDOW_SCRIPT).digest("hex");

/**
 * An exact sliding-window limiter shared by every process on one Redis (docs/design.md §13):
 * one Lua script per hit, so concurrent hits from any number of processes never exceed the limit.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const prefix = options.prefix ?? "parley:rate:";

  const run = async (keys: string[], args: string[]): Promise<unknown> => {
    try {
      return await options.client.evalSha(SCRIPT_SHA1, { keys, arguments: args });
    } catch (error) {
      // A Redis that restarted has forgotten the script: send it once in full.
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
      return options.client.eval(SLIDING_WINDOW_SCRIPT, { keys, arguments: args });
    }
  };

  return {
    async hit(key, limit, windowMs): Promise<RateLimitDecision> {
      // The hash tag keeps both keys in one slot, so the script also runs on a Redis Cluster.
      const base = `${prefix}{${key}}`;
      const now = options.clock === undefined ? "" : String(Math.floor(options.clock.now() / 1000));
      let reply: unknown;
      try {
        reply = await run([base, `${base}:seq`], [String(limit), String(windowMs), now]);
      } catch (error) {
        options.onFailure?.(error);
        if (options.failOpen) return { allowed: true, limit, remaining: limit, retryAfterMs: 0, resetMs: 0 };
        throw serviceUnavailable("Rate limiting", error);
      }
      const [allowed, remaining, retryAfterMs, resetMs] = (reply as number[]).map(Number) as [number, number, number, number];
      return { allowed: allowed === 1, limit, remaining, retryAfterMs, resetMs };
    },
  };
}
