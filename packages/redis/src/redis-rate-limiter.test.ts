import { isParleyError } from "@parley/core";
import { runRateLimiterContract } from "@parley/core/contract";
import { createManualClock } from "@parley/core/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectRedis, type RedisConnection } from "./connect-redis.js";
import { createRedisRateLimiter } from "./redis-rate-limiter.js";
import { skipWithoutRedis, startCuttableRelay, testRedisUrl, uniquePrefix } from "./test-redis.js";

if (testRedisUrl === undefined) {
  skipWithoutRedis("the Redis rate limiter on a real Redis");
} else {
  const url = testRedisUrl;
  let redis: RedisConnection;
  beforeAll(async () => void (redis = await connectRedis(url)));
  afterAll(async () => redis.close());

  describe("the Redis rate limiter, driven by the contract's clock", () => {
    runRateLimiterContract({
      create: (clock) => createRedisRateLimiter({ client: redis.client, clock, prefix: uniquePrefix() }),
      createClock: () => createManualClock(),
    });
  });

  describe("the Redis rate limiter on Redis's own clock", () => {
    it("counts up to the limit and reports a reset within the window", async () => {
      const limiter = createRedisRateLimiter({ client: redis.client, prefix: uniquePrefix() });
      const decisions = await Promise.all(Array.from({ length: 8 }, () => limiter.hit("k", 5, 60_000)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
      const refused = decisions.find((decision) => !decision.allowed)!;
      expect(refused.remaining).toBe(0);
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it("sets an expiry on its keys, so idle keys leave Redis", async () => {
      const prefix = uniquePrefix();
      await createRedisRateLimiter({ client: redis.client, prefix }).hit("idle", 3, 60_000);
      const ttl = await redis.client.pTTL(`${prefix}{idle}`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    });

    it("sends the script again after Redis forgot it (SCRIPT FLUSH, as after a restart)", async () => {
      const limiter = createRedisRateLimiter({ client: redis.client, prefix: uniquePrefix() });
      await limiter.hit("k", 2, 60_000);
      await redis.client.scriptFlush();
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(true);
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(false);
    });
  });

  describe("the Redis rate limiter when Redis goes away", () => {
    const cutRedis = async (failOpen: boolean) => {
      const relay = await startCuttableRelay(url);
      const connection = await connectRedis(relay.url, { commandTimeoutMs: 500 });
      const failures: unknown[] = [];
      const limiter = createRedisRateLimiter({ client: connection.scripting, prefix: uniquePrefix(), failOpen, onFailure: (error) => failures.push(error) });
      expect((await limiter.hit("k", 1, 60_000)).allowed).toBe(true);
      await relay.cut();
      return { limiter, failures, close: () => connection.close().catch(() => {}) };
    };

    it("refuses with the unavailable error by default, never letting traffic through unlimited", async () => {
      const { limiter, failures, close } = await cutRedis(false);
      const error = await limiter.hit("other", 5, 60_000).catch((caught: unknown) => caught);
      expect(isParleyError(error, "unavailable")).toBe(true);
      expect((error as { detail: string }).detail).toBe("Rate limiting is unavailable. Try again shortly.");
      expect(failures).toHaveLength(1);
      await close();
    });

    it("lets the request through when configured to fail open, and reports the failure", async () => {
      const { limiter, failures, close } = await cutRedis(true);
      expect(await limiter.hit("k", 1, 60_000)).toMatchObject({ allowed: true, limit: 1 });
      expect(failures).toHaveLength(1);
      await close();
    });
  });

  describe("the Redis rate limiter when Redis hangs", () => {
    it("refuses once the command's deadline passed, and says so to onFailure", async () => {
      const relay = await startCuttableRelay(url);
      const connection = await connectRedis(relay.url, { commandTimeoutMs: 300 });
      const failures: unknown[] = [];
      const limiter = createRedisRateLimiter({ client: connection.scripting, prefix: uniquePrefix(), onFailure: (error) => failures.push(error) });
      try {
        expect((await limiter.hit("k", 1, 60_000)).allowed).toBe(true);
        relay.silence();
        const error = await limiter.hit("other", 5, 60_000).catch((caught: unknown) => caught);
        expect(isParleyError(error, "unavailable")).toBe(true);
        expect(failures.map((failure) => (failure as Error).message)).toEqual(["Redis did not answer within 300 ms"]);
      } finally {
        // Closing waits for the unanswered command only as long as a command may wait.
        await connection.close();
        await relay.cut();
      }
    });
  });

  describe("connecting", () => {
    it("fails with a clear message, the password hidden, when Redis cannot be reached", async () => {
      const relay = await startCuttableRelay(url);
      await relay.cut();
      const dead = relay.url.replace("redis://", "redis://user:hunter2@");
      await expect(connectRedis(dead)).rejects.toThrow(/^Cannot connect to Redis at redis:\/\/user:\*\*\*@127\.0\.0\.1:\d+(\/\d*)?: /); // the test URL may name a database
    });
  });
}
