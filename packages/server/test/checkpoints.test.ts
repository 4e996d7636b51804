import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { call, environment, serve } from "./harness.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("a serving SQLite database's checkpoints", () => {
  it("are left to a worker while the server runs, and the stopped server leaves a checkpointed database with no WAL", async () => {
    const context = await environment();
    cleanup = context.cleanup;
    const { runtime, running, url } = await serve(context.env);
    // A second after the start, the server's own connection no longer checkpoints when it commits.
    // (The poll's timeout only bounds a hang.)
    await expect.poll(() => runtime.database.pragma("wal_autocheckpoint", { simple: true }), { timeout: 30_000, interval: 50 }).toBe(0);
    const user = await runtime.parley.admin.createUser({ email: "checkpoints@example.com" });
    const { key } = await runtime.parley.admin.createApiKey({ userId: user.id });
    const bot = await runtime.parley.admin.createChatbot({ userId: user.id, name: "Checkpointed", provider: "openai", model: "gpt-test" });
    expect((await call(`${url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "Is it kept?", session_id: "s1" } })).status).toBe(200);
    await running.stop();
    // The worker's connection closed first: the server's, the last one, checkpointed and removed the WAL.
    expect(existsSync(`${context.env.PARLEY_DB}-wal`)).toBe(false);
  });
});
