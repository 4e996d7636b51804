import { rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { replyWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChildren, startChild, type Child } from "./crash/crash-harness.js";
import { call, environment } from "./harness.js";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";

// `parley serve` as a child process (built once into plain JavaScript), stopped with SIGTERM.
let children: Awaited<ReturnType<typeof buildChildren>>;
let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  children = await buildChildren();
  context = await environment({ PARLEY_SECRET_KEY: "graceful-stop-master-key-0123456789abcdef" });
}, 60_000);

afterAll(async () => {
  await context?.cleanup();
  if (children) rmSync(children.folder, { recursive: true, force: true });
});

/** A webhook receiver that holds each request until `release()`, counting what arrived. */
async function startHoldingReceiver() {
  const held: Array<() => void> = [];
  const server = createServer((request, response) => {
    request.resume();
    held.push(() => response.writeHead(204).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrived: () => held.length,
    release: () => held.splice(0).forEach((answer) => answer()),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function seed(env: Record<string, string>, receiverUrl?: string) {
  const runtime = openParley(loadConfig(env));
  try {
    const { admin } = runtime.parley;
    const user = await admin.createUser({ email: `stop-${Math.random()}@example.com` });
    const { key } = await admin.createApiKey({ userId: user.id });
    const bot = await admin.createChatbot({ userId: user.id, name: "Stopping", provider: "openai", model: "gpt-test" });
    if (receiverUrl !== undefined) await admin.createWebhookSubscription({ userId: user.id, url: receiverUrl });
    return { key, botId: bot.id };
  } finally {
    runtime.close();
  }
}

async function serveChild(env: Record<string, string>): Promise<Child & { url: string }> {
  const child = startChild(children.cli, ["serve", "--port", "0"], env);
  await expect.poll(() => child.stderr(), { timeout: 30_000, interval: 20 }).toMatch(/listening on http/);
  return { ...child, url: /listening on (http:\/\/\S+) /.exec(child.stderr())![1]! };
}

const rows = (path: string, sql: string) => {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    return database.prepare(sql).all();
  } finally {
    database.close();
  }
};

describe("SIGTERM", () => {
  it("stops accepting, finishes the chat in flight and the webhook attempts in flight, then exits 0", async () => {
    const env = { ...context.env, PARLEY_DB: join(context.folder, "finish.db"), PARLEY_SHUTDOWN_GRACE_MS: "20000" };
    const receiver = await startHoldingReceiver();
    const { key, botId } = await seed(env, receiver.url);
    const server = await serveChild(env);
    // The model holds its reply until the test lets it go: the chat is in flight at the signal
    // however fast or slow the machine.
    let answerModel!: () => void;
    const modelMayAnswer = new Promise<void>((resolve) => (answerModel = resolve));
    const before = context.openai.chat.requestCount;
    context.openai.chat.enqueue(replyWith("finished after the stop began", { until: modelMayAnswer }));
    const inFlight = call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "take your time", session_id: "stop" } });
    // The chat has committed its events and the dispatcher is posting them; the model is still thinking.
    // (The polls' timeouts only bound a hang: each waits for a state that must come.)
    await expect.poll(() => receiver.arrived(), { timeout: 30_000, interval: 10 }).toBe(2);
    await expect.poll(() => context.openai.chat.requestCount, { timeout: 30_000, interval: 10 }).toBe(before + 1);
    server.process.kill("SIGTERM");
    await expect.poll(() => fetch(`${server.url}/healthz`).then(() => "accepted", () => "refused"), { timeout: 30_000, interval: 20 }).toBe("refused");
    answerModel();
    expect(await inFlight).toMatchObject({ status: 200, json: { response: "finished after the stop began" } });
    receiver.release();
    expect(await server.exited).toEqual({ code: 0, signal: null });
    // The attempts in flight at the signal were finished and recorded before the database closed.
    expect(rows(env.PARLEY_DB, "SELECT status, attempts FROM webhook_deliveries")).toEqual([
      { status: "delivered", attempts: 1 },
      { status: "delivered", attempts: 1 },
    ]);
    await receiver.close();
  }, 60_000);

  it("cuts a request still running after PARLEY_SHUTDOWN_GRACE_MS, keeps its message, and exits 0 without waiting for the model", async () => {
    const env = { ...context.env, PARLEY_DB: join(context.folder, "cut.db"), PARLEY_SHUTDOWN_GRACE_MS: "300", PARLEY_LLM_TIMEOUT_MS: "120000" };
    const { key, botId } = await seed(env);
    const server = await serveChild(env);
    const before = context.openai.chat.requestCount;
    // Longer than this test's own timeout: the process must not wait for it.
    context.openai.chat.enqueue(replyWith("too late", { delayMs: 90_000 }));
    const inFlight = call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "a very slow question", session_id: "cut" } }).then(
      (response) => response.status,
      () => "cut",
    );
    await expect.poll(() => context.openai.chat.requestCount, { timeout: 30_000, interval: 10 }).toBe(before + 1);
    server.process.kill("SIGTERM");
    expect(await inFlight).toBe("cut");
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(rows(env.PARLEY_DB, "SELECT role, content FROM messages")).toEqual([{ role: "user", content: "a very slow question" }]);
  }, 60_000);
});

describe("SIGKILL", () => {
  it("leaves the visitor's message of a reply cut off with the process, and marks its conversation for an agent once started again", async () => {
    const env = { ...context.env, PARLEY_DB: join(context.folder, "killed.db"), PARLEY_UNANSWERED_AFTER_MS: "0" };
    const { key, botId } = await seed(env);
    const server = await serveChild(env);
    let answerModel!: () => void;
    const modelMayAnswer = new Promise<void>((resolve) => (answerModel = resolve));
    const before = context.openai.chat.requestCount;
    context.openai.chat.enqueue(replyWith("never stored", { until: modelMayAnswer }));
    const inFlight = call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "are you there?", session_id: "killed" } }).then(
      (response) => response.status,
      () => "cut",
    );
    await expect.poll(() => context.openai.chat.requestCount, { timeout: 30_000, interval: 10 }).toBe(before + 1);
    server.process.kill("SIGKILL");
    expect(await server.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await inFlight).toBe("cut");
    answerModel();
    const attention = "SELECT needs_attention, attention_reason FROM conversations";
    expect(rows(env.PARLEY_DB, "SELECT role, content FROM messages")).toEqual([{ role: "user", content: "are you there?" }]);
    expect(rows(env.PARLEY_DB, attention)).toEqual([{ needs_attention: 0, attention_reason: null }]);

    const restarted = await serveChild(env);
    // (The poll's timeout only bounds a hang: the watch looks as soon as the server has started.)
    await expect.poll(() => rows(env.PARLEY_DB, attention), { timeout: 30_000, interval: 20 }).toEqual([{ needs_attention: 1, attention_reason: "provider_failed" }]);
    restarted.process.kill("SIGTERM");
    expect(await restarted.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});
