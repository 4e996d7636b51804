import { connectRedis, createRedisRateLimiter } from "@parley/redis";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { call, environment } from "./harness.js";

// The per-key limit on Redis over HTTP, and what a caller sees while Redis is down
// (docs/design.md §13): 503 with a detail, never a request let through unlimited by default.

const testRedisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || undefined;
if (testRedisUrl === undefined) console.warn("skipped: rate limits on Redis over HTTP: PARLEY_TEST_REDIS_URL is not set, so there is no Redis to run them on.");
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serveWithRedis(url: string, options: { failOpen: boolean; closeRedis: boolean }) {
  const context = await environment({ PARLEY_KEY_RATE_LIMIT: "3" });
  const redis = await connectRedis(url);
  const prefix = `parley-test:${Math.random().toString(36).slice(2)}:`;
  const runtime = openParley(loadConfig(context.env), { rateLimiter: createRedisRateLimiter({ client: redis.client, prefix, failOpen: options.failOpen }) });
  const running: RunningServer = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
  cleanups.push(async () => {
    await running.stop();
    await redis.close().catch(() => {});
    await context.cleanup();
  });
  const user = await runtime.parley.admin.createUser({ email: "redis@example.com" });
  const { key } = await runtime.parley.admin.createApiKey({ userId: user.id });
  if (options.closeRedis) await redis.close();
  return { url: running.url, key };
}

describe.skipIf(testRedisUrl === undefined)("rate limits on Redis over HTTP (needs PARLEY_TEST_REDIS_URL)", () => {
  it("counts a key's requests in Redis: the 4th of 3 per minute is refused with 429", async () => {
    const { url, key } = await serveWithRedis(testRedisUrl!, { failOpen: false, closeRedis: false });
    const statuses = [];
    for (let index = 0; index < 4; index += 1) statuses.push((await call(`${url}/v1/chatbots`, { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("answers 503 with a detail and Retry-After while Redis is unreachable", async () => {
    const { url, key } = await serveWithRedis(testRedisUrl!, { failOpen: false, closeRedis: true });
    const response = await call(`${url}/v1/chatbots`, { key });
    expect(response.status).toBe(503);
    expect(response.json).toEqual({ detail: "Rate limiting is unavailable. Try again shortly." });
    expect(response.headers.get("retry-after")).toBe("1");
  });

  it("lets requests through while Redis is unreachable when configured to fail open", async () => {
    const { url, key } = await serveWithRedis(testRedisUrl!, { failOpen: true, closeRedis: true });
    const statuses = [];
    for (let index = 0; index < 5; index += 1) statuses.push((await call(`${url}/v1/chatbots`, { key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
  });
});
