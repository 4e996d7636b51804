import { connectRedis, createRedisRateLimiter } from "@parley/redis";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { call, environment } from "./harness.js";

// The widget's per-address limits on Redis: two server processes' worth of runtimes on one
// database and one Redis count a client address together (docs/design.md §14).

const testRedisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || undefined;
if (testRedisUrl === undefined) console.warn("skipped: the widget's limits on Redis: PARLEY_TEST_REDIS_URL is not set, so there is no Redis to run them on.");
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe.skipIf(testRedisUrl === undefined)("the widget's limits on Redis (needs PARLEY_TEST_REDIS_URL)", () => {
  it("two servers share one address's session count: the next session past the limit is 429 on either", async () => {
    const context = await environment({ PARLEY_SECRET_KEY: "widget-redis-master-key-0123456789abcdef", PARLEY_WIDGET_SESSIONS_PER_HOUR: "3" });
    cleanups.push(() => context.cleanup());
    const prefix = `parley-test:${Math.random().toString(36).slice(2)}:`;
    const servers: RunningServer[] = [];
    let chatbotId = "";
    for (let index = 0; index < 2; index += 1) {
      const redis = await connectRedis(testRedisUrl!);
      const runtime = openParley(loadConfig(context.env), { rateLimiter: createRedisRateLimiter({ client: redis.client, prefix, failOpen: false }), log: () => {} });
      if (index === 0) {
        const { admin } = runtime.parley;
        const user = await admin.createUser({ email: "widget-redis@example.com" });
        chatbotId = (await admin.createChatbot({ userId: user.id, name: "Shared", provider: "openai", model: "gpt-test" })).id;
        await admin.changeChatbot(chatbotId, { widget: { enabled: true } });
      }
      const running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
      servers.push(running);
      cleanups.push(async () => {
        await running.stop();
        await redis.close().catch(() => {});
      });
    }
    const [one, two] = servers.map((server) => server.url) as [string, string];
    const start = (url: string) => call(`${url}/v1/widget/${chatbotId}/sessions`, { body: {} });
    expect([(await start(one)).status, (await start(two)).status, (await start(one)).status]).toEqual([201, 201, 201]);
    const refused = await start(two);
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: "Too many new chat sessions from this address: at most 3 an hour. Try again later." });
    expect((await start(one)).status).toBe(429);
  });
});
