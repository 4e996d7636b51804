import { createPool } from "@parley/postgres";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openRuntime } from "../src/runtime/open-runtime.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import type { ParleyRuntime } from "../src/runtime/open-parley.js";
import { call, environment } from "./harness.js";
import { startTestPostgres, testDatabaseUrl, type TestPostgres } from "./test-postgres-url.js";

// A connection PostgreSQL kills in the middle of a request's transaction fails that request alone:
// 503 with a {detail}, nothing of it written, and the next request served on a new connection.

if (testDatabaseUrl === undefined) console.warn("skipped: a killed PostgreSQL connection: PARLEY_TEST_DATABASE_URL is not set.");
describe.skipIf(testDatabaseUrl === undefined)("a PostgreSQL connection killed mid-transaction (needs PARLEY_TEST_DATABASE_URL)", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let database: TestPostgres;
  let runtime: ParleyRuntime;
  let running: RunningServer;
  let observer: pg.Pool;

  beforeAll(async () => {
    context = await environment({ PARLEY_SECRET_KEY: "a-master-key-for-the-connection-loss-test" });
    database = await startTestPostgres();
    runtime = await openRuntime(loadConfig({ ...context.env, PARLEY_DATABASE_URL: database.url }));
    running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
    observer = createPool({ url: database.url, poolSize: 3 });
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await observer?.end();
    await database?.stop();
    await context?.cleanup();
  });

  it("answers 503 {detail}, rolls the request back, and serves the next one", async () => {
    const user = await runtime.parley.admin.createUser({ email: "loss@example.com" });
    const { key } = await runtime.parley.admin.createApiKey({ userId: user.id });
    const chatbot = await runtime.parley.admin.createChatbot({ userId: user.id, name: "Loss", provider: "openai", model: "gpt-test" });
    const chat = (message: string) => call(`${running.url}/v1/chatbots/${chatbot.id}/chat`, { key, body: { message, session_id: "visitor" } });
    expect((await chat("first")).status).toBe(200);
    const counts = async () =>
      (await observer.query<{ messages: number; used: number }>(
        "SELECT (SELECT count(*)::int FROM messages) AS messages, (SELECT coalesce(sum(used), 0)::int FROM monthly_usage) AS used",
      )).rows[0]!;
    const before = await counts();

    // Hold the conversation's row: the next chat waits on it inside its transaction.
    const holder = await observer.connect();
    await holder.query("BEGIN");
    await holder.query("SELECT id FROM conversations FOR UPDATE");
    const pending = chat("second");
    let victim: number | undefined;
    while (victim === undefined) {
      const { rows } = await observer.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> $1",
        [(await holder.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")).rows[0]!.pid],
      );
      victim = rows[0]?.pid;
    }
    await observer.query("SELECT pg_terminate_backend($1)", [victim]);
    const refused = await pending;
    await holder.query("ROLLBACK");
    holder.release();

    expect(refused.status).toBe(503);
    expect(refused.json).toEqual({ detail: "The database is unavailable. Try again shortly." });
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(await counts()).toEqual(before); // neither the quota reservation nor the message stayed

    const next = await chat("third");
    expect(next.status).toBe(200);
    expect(await counts()).toEqual({ messages: before.messages + 2, used: before.used + 1 });
  }, 60_000);
});
