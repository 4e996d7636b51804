import { createPool } from "@parley/postgres";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openRuntime } from "../src/runtime/open-runtime.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import type { ParleyRuntime } from "../src/runtime/open-parley.js";
import { call, environment } from "./harness.js";
import { startTestPostgres, testDatabaseUrl, type TestPostgres } from "./test-postgres-url.js";

// An upload received by one server process is read by whichever process takes its ingestion up:
// the file waits in PostgreSQL, not on the disk of the process that received it.

if (testDatabaseUrl === undefined) console.warn("skipped: uploads shared by processes: PARLEY_TEST_DATABASE_URL is not set.");
describe.skipIf(testDatabaseUrl === undefined)("uploads shared by two processes on PostgreSQL (needs PARLEY_TEST_DATABASE_URL)", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let database: TestPostgres;
  let receiver: ParleyRuntime;
  let running: RunningServer;
  let worker: ParleyRuntime;
  let observer: pg.Pool;

  beforeAll(async () => {
    context = await environment({ PARLEY_SECRET_KEY: "a-master-key-for-the-shared-uploads-test" });
    database = await startTestPostgres();
    const config = loadConfig({ ...context.env, PARLEY_DATABASE_URL: database.url });
    receiver = await openRuntime(config);
    running = await startServer({ runtime: receiver, port: 0, host: "127.0.0.1", log: () => {} });
    // Another process's runtime: its own pool, its own (here: no) disk.
    worker = await openRuntime({ ...config, databasePath: "/nonexistent/parley.db" });
    observer = createPool({ url: database.url, poolSize: 1 });
  }, 60_000);

  afterAll(async () => {
    await running?.stop();
    await worker?.close();
    await observer?.end();
    await database?.stop();
    await context?.cleanup();
  });

  it("is ingested by the other process, then removed", async () => {
    const user = await receiver.parley.admin.createUser({ email: "uploads@example.com" });
    const { key } = await receiver.parley.admin.createApiKey({ userId: user.id, scope: "admin" });
    const chatbot = await receiver.parley.admin.createChatbot({ userId: user.id, name: "Shared", provider: "openai", model: "gpt-test" });
    const form = new FormData();
    form.append("files", new Blob(["The descaling interval of the Zephyr kettle is four weeks."]), "zephyr.txt");
    const response = await fetch(`${running.url}/v1/admin/chatbots/${chatbot.id}/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    const waiting = async () => (await observer.query<{ count: number }>("SELECT count(*)::int AS count FROM uploads")).rows[0]!.count;
    expect(await waiting()).toBe(1);

    expect(await worker.ingestions.runOnce()).toBeTruthy();
    expect((await call(`${running.url}/v1/admin/ingestions/${id}`, { key })).json).toMatchObject({ status: "succeeded", documents_done: 1, errors: [] });
    expect(await waiting()).toBe(0);
    const found = await call(`${running.url}/v1/admin/chatbots/${chatbot.id}/search`, { key, body: { query: "descaling interval Zephyr" } });
    expect((found.json as { data: { text: string }[] }).data[0]!.text).toContain("four weeks");
  }, 60_000);

  it("is removed, unread, when its ingestion is given up and when its chatbot is deleted", async () => {
    const user = await receiver.parley.admin.createUser({ email: "uploads-ended@example.com" });
    const { key } = await receiver.parley.admin.createApiKey({ userId: user.id, scope: "admin" });
    const waiting = async () => (await observer.query<{ count: number }>("SELECT count(*)::int AS count FROM uploads")).rows[0]!.count;
    const send = async (chatbotId: string, name: string) => {
      const form = new FormData();
      form.append("files", new Blob(["Never read."]), name);
      const response = await fetch(`${running.url}/v1/admin/chatbots/${chatbotId}/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
      expect(response.status).toBe(202);
      return ((await response.json()) as { id: string }).id;
    };
    const kept = await receiver.parley.admin.createChatbot({ userId: user.id, name: "Kept", provider: "openai", model: "gpt-test" });
    const lost = await send(kept.id, "lost.txt");
    expect(await waiting()).toBe(1);
    // As if three runners had died on it: the next claim gives it up without reading it.
    await observer.query("UPDATE ingestions SET attempts = 3 WHERE id = $1", [lost]);
    expect(await worker.ingestions.runOnce()).toBeTruthy();
    expect((await call(`${running.url}/v1/admin/ingestions/${lost}`, { key })).json).toMatchObject({ status: "failed", documents_done: 0 });
    expect(await waiting()).toBe(0);

    const doomed = await receiver.parley.admin.createChatbot({ userId: user.id, name: "Doomed", provider: "openai", model: "gpt-test" });
    await send(doomed.id, "never.txt");
    expect(await waiting()).toBe(1);
    expect((await call(`${running.url}/v1/admin/chatbots/${doomed.id}`, { key, method: "DELETE" })).status).toBe(204);
    expect(await waiting()).toBe(0);
  }, 60_000);
});
