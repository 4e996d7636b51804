import { createHash } from "node:crypto";
import { serviceUnavailable, type Clock, type RateLimitDecision, type RateLimiter, type RateLimitHit } from "@parley/core";
import { SLIDING_WINDOW_SCRIPT, SLIDING_WINDOWS_SCRIPT } from "./sliding-window-script.js";

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

const sha1 = (script: string) => createHash("sha1").update(script).digest("hex");
const SCRIPTS = { one: { text: SLIDING_WINDOW_SCRIPT, sha1: sha1(SLIDING_WINDOW_SCRIPT) }, many: { text: SLIDING_WINDOWS_SCRIPT, sha1: sha1(SLIDING_WINDOWS_SCRIPT) } };

/**
 * An exact sliding-window limiter shared by every process on one Redis (docs/design.md §13):
 * one Lua script per hit, so concurrent hits from any number of processes never exceed the limit,
 * and one script for the hits of a `hitInOrder` (a chat's two limits in one round trip). Each
 * window has its own hash tag, so a `hit` runs on a Redis Cluster too; `hitInOrder` names
 * windows of several slots, so it needs one Redis (docs/scaling.md: a Redis, not a cluster).
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const prefix = options.prefix ?? "parley:rate:";

  const run = async (script: { text: string; sha1: string }, keys: string[], args: string[]): Promise<unknown> => {
    try {
      return await options.client.evalSha(script.sha1, { keys, arguments: args });
    } catch (error) {
      // A Redis that restarted has forgotten the script: send it once in full.
      if (!String((error as Error | undefined)?.message).startsWith("NOSCRIPT")) throw error;
      return options.client.eval(script.text, { keys, arguments: args });
    }
  };
  // The hash tag keeps a window's two keys in one slot.
  const windowKeys = (key: string) => [`${prefix}{${key}}`, `${prefix}{${key}}:seq`];
  const now = () => (options.clock === undefined ? "" : String(Math.floor(options.clock.now() / 1000)));
  const unreachable = (error: unknown) => {
    options.onFailure?.(error);
    if (!options.failOpen) throw serviceUnavailable("Rate limiting", error);
  };
  const decisionOf = (reply: number[], offset: number, limit: number): RateLimitDecision => {
    const [allowed, remaining, retryAfterMs, resetMs] = reply.slice(offset, offset + 4).map(Number) as [number, number, number, number];
    return { allowed: allowed === 1, limit, remaining, retryAfterMs, resetMs };
  };
  const letThrough = (limit: number): RateLimitDecision => ({ allowed: true, limit, remaining: limit, retryAfterMs: 0, resetMs: 0 });

  return {
    async hit(key, limit, windowMs): Promise<RateLimitDecision> {
      let reply: unknown;
      try {
        reply = await run(SCRIPTS.one, windowKeys(key), [String(limit), String(windowMs), now()]);
      } catch (error) {
        unreachable(error);
        return letThrough(limit);
      }
      return decisionOf(reply as number[], 0, limit);
    },

    async hitInOrder(hits: readonly RateLimitHit[]): Promise<RateLimitDecision[]> {
      if (hits.length === 0) return [];
      let reply: unknown;
      try {
        const args = [now(), ...hits.flatMap(({ limit, windowMs }) => [String(limit), String(windowMs)])];
        reply = await run(SCRIPTS.many, hits.flatMap(({ key }) => windowKeys(key)), args);
      } catch (error) {
        unreachable(error);
        return hits.map(({ limit }) => letThrough(limit));
      }
      const reports = reply as number[];
      return hits.slice(0, reports.length / 4).map(({ limit }, index) => decisionOf(reports, index * 4, limit));
    },
  };
}
