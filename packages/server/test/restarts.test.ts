import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openRuntime } from "../src/runtime/open-runtime.js";
import type { ParleyRuntime } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { call, environment } from "./harness.js";
import { privatePostgresUnavailable, startPrivatePostgres, startPrivateRedis } from "./private-servers.js";

// PostgreSQL restarted under load, and Redis restarted: the server recovers by itself. Both run
// privately for this file (initdb and redis-server on free ports): the machine's shared servers
// are never stopped.

const KEY_LIMIT = 50;
const unavailable = await privatePostgresUnavailable();
if (unavailable !== undefined) console.warn(`skipped: restarts of PostgreSQL and Redis: ${unavailable}.`);

describe.skipIf(unavailable !== undefined)("restarts of a private PostgreSQL and Redis under a running server", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let postgres: Awaited<ReturnType<typeof startPrivatePostgres>>;
  let redis: Awaited<ReturnType<typeof startPrivateRedis>>;
  let runtime: ParleyRuntime;
  let running: RunningServer;

  beforeAll(async () => {
    context = await environment({ PARLEY_SECRET_KEY: "a-master-key-for-the-restart-tests", PARLEY_KEY_RATE_LIMIT: String(KEY_LIMIT) });
    [postgres, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
    runtime = await openRuntime(loadConfig({ ...context.env, PARLEY_DATABASE_URL: postgres.url, PARLEY_REDIS_URL: redis.url }));
    running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
  }, 120_000);

  afterAll(async () => {
    await running?.stop();
    await redis?.stop();
    await postgres?.stop();
    await context?.cleanup();
  });

  it("PostgreSQL restarted under load: requests meanwhile fail with 503 {detail}, never 500, and the server serves again by itself", async () => {
    const { admin } = runtime.parley;
    const user = await admin.createUser({ email: "restart@example.com" });
    const keys = await Promise.all(Array.from({ length: 20 }, async () => (await admin.createApiKey({ userId: user.id })).key));
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Restart", provider: "openai", model: "gpt-test" });
    const statuses: number[] = [];
    const details: unknown[] = [];
    let restarted = false;
    let servedAfter = 0;
    let sent = 0;
    const load = async () => {
      while (!(restarted && servedAfter >= 5)) {
        const index = sent++;
        const answer = await call(`${running.url}/v1/chatbots/${chatbot.id}/chat`, {
          key: keys[index % keys.length],
          body: { message: `Question ${index}`, session_id: `visitor-${index}` },
        });
        statuses.push(answer.status);
        if (answer.status !== 200) details.push(answer.json);
        if (restarted && answer.status === 200) servedAfter += 1;
      }
    };
    const loops = [load(), load(), load()];
    // Restart once the load is running: a few chats answered first.
    while (statuses.filter((status) => status === 200).length < 5) await new Promise((resolve) => setImmediate(resolve));
    await postgres.restart();
    restarted = true;
    await Promise.all(loops);
    expect(new Set(statuses.filter((status) => status !== 200))).toEqual(new Set(details.length > 0 ? [503] : []));
    for (const detail of details) expect(detail).toEqual({ detail: "The database is unavailable. Try again shortly." });
    expect(servedAfter).toBeGreaterThanOrEqual(5);
  }, 120_000);

  it("Redis restarted: refused with 503 while it is down (fail closed), limited again once it is back", async () => {
    const { admin } = runtime.parley;
    const user = await admin.createUser({ email: "redis-restart@example.com" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const list = () => call(`${running.url}/v1/chatbots`, { key });
    expect((await list()).status).toBe(200);

    await redis.stop();
    const refused = await list();
    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ detail: "Rate limiting is unavailable. Try again shortly." });
    expect(refused.headers.get("retry-after")).toBe("1");

    await redis.start();
    // The client reconnects in the background: refused until then, served after.
    let answer = await list();
    while (answer.status === 503) answer = await list();
    expect(answer.status).toBe(200);
    // The windows restarted empty: the limit holds again from the first request served.
    let served = 1;
    for (answer = await list(); answer.status === 200; answer = await list()) served += 1;
    expect(answer.status).toBe(429);
    expect(served).toBe(KEY_LIMIT);
  }, 120_000);
});
