import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failWith, replyWith } from "@parley/providers/testing";
import { call, environment, runCli, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
let userId: string;
let key: string;
let botId: string;

/** A fresh key for the user, so each test starts with the whole per-key rate limit. */
const freshKey = async () => (await server.runtime.parley.admin.createApiKey({ userId })).key;

beforeAll(async () => {
  context = await environment();
  // Set-up through the real CLI, as an operator would.
  const user = await runCli(["user", "create", "--email", "owner@example.com"], context.env);
  expect(user.code, user.stderr).toBe(0);
  userId = (user.json as { id: string }).id;
  key = ((await runCli(["key", "create", "--user", userId], context.env)).json as { key: string }).key;
  const bot = await runCli(
    ["bot", "create", "--user", userId, "--name", "Kettle Help", "--provider", "openai", "--model", "gpt-test", "--system-prompt", "You help with kettles."],
    context.env,
  );
  botId = (bot.json as { id: string }).id;
  const ingest = await runCli(["ingest", "--bot", botId, "../../examples/quickstart"], context.env);
  expect(ingest.json).toMatchObject({ documents: 4 });
  server = await serve(context.env);
}, 60_000);

afterAll(async () => {
  await server?.running.stop();
  await context?.cleanup();
});

describe("the three routes", () => {
  it("answers a chat with the model's reply, built from the retrieved context", async () => {
    const reply = "Your kettle has a 2-year limited warranty.";
    context.openai.chat.enqueue(replyWith(reply));
    const response = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: await freshKey(), body: { message: "How long is the warranty?", session_id: "s1" } });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ response: reply });
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const sent = context.openai.chat.requests.at(-1)!.body as { model: string; messages: { role: string; content: string }[] };
    expect(sent.model).toBe("gpt-test");
    expect(sent.messages[0]!.role).toBe("system");
    expect(sent.messages[0]!.content).toMatch(/^You help with kettles\./);
    expect(sent.messages[0]!.content).toContain("2-year limited warranty");
    expect(sent.messages.at(-1)).toEqual({ role: "user", content: "How long is the warranty?" });
  });

  it("lists the caller's chatbots as a bare array of list forms, and shows one in detail form", async () => {
    const listKey = await freshKey();
    const list = await call(`${server.url}/v1/chatbots`, { key: listKey });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.json)).toBe(true);
    expect(list.json).toEqual([
      { id: botId, name: "Kettle Help", slug: "kettle-help", provider: "openai", is_active: true, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/) },
    ]);
    const detail = await call(`${server.url}/v1/chatbots/${botId}`, { key: listKey });
    expect(Object.keys(detail.json as object)).toEqual(["id", "name", "slug", "provider", "is_active", "created_at", "system_prompt", "fallback_message"]);
  });

  it("reads the knowledge base's keyword postings ahead once started, and says so in one log line", async () => {
    await expect.poll(() => server.logs.find((line) => line.event === "search_warmed_up"), { timeout: 10_000 }).toBeDefined();
    const line = server.logs.find((entry) => entry.event === "search_warmed_up")!;
    expect(line.chatbots).toBe(1);
    expect(line.words).toBeGreaterThan(100); // the quickstart's four documents
  });

  it("answers GET /healthz without a key", async () => {
    expect(await call(`${server.url}/healthz`)).toMatchObject({ status: 200, json: { status: "ok" } });
  });
});

describe("authentication", () => {
  it.each([
    ["no header", undefined],
    ["an unknown key", `prl_${"x".repeat(43)}`],
    ["a malformed key", "not-a-key"],
  ])("answers 401 with WWW-Authenticate for %s", async (_label, candidate) => {
    const response = await call(`${server.url}/v1/chatbots`, candidate === undefined ? {} : { key: candidate });
    expect(response.status).toBe(401);
    expect(response.json).toEqual({ detail: "Invalid or missing API key." });
    expect(response.headers.get("www-authenticate")).toBe("Bearer");
    expect(response.headers.get("ratelimit-limit")).toBeNull();
  });

  it("refuses a key revoked by the CLI at once", async () => {
    const created = await runCli(["key", "create", "--user", userId, "--name", "short-lived"], context.env);
    const { id, key: revokedKey } = created.json as { id: string; key: string };
    expect((await call(`${server.url}/v1/chatbots`, { key: revokedKey })).status).toBe(200);
    expect((await runCli(["key", "revoke", id], context.env)).json).toEqual({ id, revoked: true });
    expect((await call(`${server.url}/v1/chatbots`, { key: revokedKey })).status).toBe(401);
  });

  it("hides another user's chatbot and a malformed id behind the same 404", async () => {
    const other = await server.runtime.parley.admin.createUser({ email: "other@example.com" });
    const otherKey = (await server.runtime.parley.admin.createApiKey({ userId: other.id })).key;
    for (const path of [`/v1/chatbots/${botId}`, "/v1/chatbots/not-a-uuid", "/v1/chatbots/%E0%A4%A"]) {
      expect(await call(`${server.url}${path}`, { key: otherKey })).toMatchObject({ status: 404, json: { detail: "Chatbot not found." } });
    }
    const chat = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: otherKey, body: { message: "hi" } });
    expect(chat).toMatchObject({ status: 404, json: { detail: "Chatbot not found." } });
    expect(await call(`${server.url}/v1/chatbots`, { key: otherKey })).toMatchObject({ status: 200, json: [] });
  });
});

describe("bad requests", () => {
  const chatUrl = () => `${server.url}/v1/chatbots/${botId}/chat`;

  it("answers 400 for a body that is not JSON, 415 for another content type, 413 past 1 MiB", async () => {
    const badKey = await freshKey();
    expect(await call(chatUrl(), { key: badKey, raw: "{not json" })).toMatchObject({ status: 400, json: { detail: "Request body must be valid JSON." } });
    expect(await call(chatUrl(), { key: badKey, raw: "message=hi", contentType: "application/x-www-form-urlencoded" })).toMatchObject({
      status: 415,
      json: { detail: "Content-Type must be application/json." },
    });
    const huge = await call(chatUrl(), { key: badKey, body: { message: "x".repeat(1024 * 1024 + 10) } });
    expect(huge).toMatchObject({ status: 413, json: { detail: "Request body must not exceed 1 MiB." } });
  });

  it.each([
    ["no message", {}, "message: must be a non-empty string"],
    ["a numeric message", { message: 5 }, "message: must be a non-empty string"],
    ["a blank message", { message: " \n " }, "message: must be a non-empty string"],
    ["an over-long message", { message: "y".repeat(32_001) }, "message: must be at most 32000 characters"],
    ["a numeric session", { message: "hi", session_id: 1 }, "session_id: must be a non-empty string"],
    ["an array body", [1, 2], "body: must be a JSON object"],
  ])("answers 422 naming the field for %s", async (_label, body, detail) => {
    expect(await call(chatUrl(), { key: await freshKey(), body })).toMatchObject({ status: 422, json: { detail } });
  });

  it("checks the body before the chatbot: a bad body to a missing chatbot is 422", async () => {
    const response = await call(`${server.url}/v1/chatbots/00000000-0000-4000-8000-000000000000/chat`, { key: await freshKey(), body: {} });
    expect({ status: response.status, body: response.json }).toEqual({ status: 422, body: { detail: "message: must be a non-empty string" } });
  });

  it("answers hostile text in the message (FTS5 operators, quotes, SQL) like any other message", async () => {
    const hostileKey = await freshKey();
    for (const message of ['"unbalanced', "NEAR(kettle warranty", "a* OR b* NOT c", "'; DROP TABLE messages; --", "kettle:warranty AND ^boil", "\u0000nul"]) {
      const response = await call(chatUrl(), { key: hostileKey, body: { message, session_id: "hostile" } });
      expect(response.status, message).toBe(200);
    }
  });

  it("answers 404 for an unknown route and 405 with Allow for a wrong method", async () => {
    expect(await call(`${server.url}/v2/chatbots`, { key })).toMatchObject({ status: 404, json: { detail: "Not found." } });
    const wrong = await call(`${server.url}/v1/chatbots`, { key, method: "DELETE" });
    expect(wrong).toMatchObject({ status: 405, json: { detail: "Method not allowed." } });
    expect(wrong.headers.get("allow")).toBe("GET");
    expect((await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, method: "GET" })).headers.get("allow")).toBe("POST");
  });
});

describe("provider failures and takeover", () => {
  it("answers 500 with the provider detail, no upstream text, and keeps the user message", async () => {
    context.openai.chat.enqueue(failWith(401, { message: "Incorrect API key provided: sk-test-secret-1234" }));
    const response = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: await freshKey(), body: { message: "hello?", session_id: "failing" } });
    expect(response).toMatchObject({ status: 500, json: { detail: "The language model provider failed to answer." } });
    expect(response.text).not.toContain("sk-test");
    const shown = await runCli(["conversation", "show", "--bot", botId, "--session", "failing"], context.env);
    expect((shown.json as { messages: { role: string }[] }).messages.map((message) => message.role)).toEqual(["user"]);
    expect(JSON.stringify(server.logs)).not.toContain("sk-test-secret-1234");
  });

  it("answers 202 with an empty response during a takeover started by the CLI", async () => {
    const started = await runCli(["takeover", "start", "--bot", botId, "--session", "human"], context.env);
    expect(started.json).toMatchObject({ human_takeover: true, conversation_id: expect.any(String) });
    const before = context.openai.chat.requestCount;
    const response = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: await freshKey(), body: { message: "a person please", session_id: "human" } });
    expect(response).toMatchObject({ status: 202, json: { response: "" } });
    expect(context.openai.chat.requestCount).toBe(before);
    const ended = await runCli(["takeover", "end", "--bot", botId, "--session", "human"], context.env);
    expect(ended.json).toMatchObject({ human_takeover: false });
  });

  it("answers 403 for a paused chatbot and serves it again once resumed", async () => {
    const pauseKey = await freshKey();
    expect((await runCli(["bot", "pause", botId], context.env)).json).toMatchObject({ id: botId, is_active: false });
    expect(await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: pauseKey, body: { message: "hi" } })).toMatchObject({
      status: 403,
      json: { detail: "Chatbot is paused by its owner." },
    });
    await runCli(["bot", "resume", botId], context.env);
    expect((await call(`${server.url}/v1/chatbots/${botId}/chat`, { key: pauseKey, body: { message: "hi" } })).status).toBe(200);
  });

  it("shows a change the CLI made in another process on the very next request (the server caches reads)", async () => {
    const listKey = await freshKey();
    const isActive = async () => {
      const list = (await call(`${server.url}/v1/chatbots`, { key: listKey })).json as { id: string; is_active: boolean }[];
      const detail = (await call(`${server.url}/v1/chatbots/${botId}`, { key: listKey })).json as { is_active: boolean };
      return [list.find((bot) => bot.id === botId)?.is_active, detail.is_active];
    };
    expect(await isActive()).toEqual([true, true]);
    expect(await isActive()).toEqual([true, true]);
    await runCli(["bot", "pause", botId], context.env);
    expect(await isActive()).toEqual([false, false]);
    await runCli(["bot", "resume", botId], context.env);
    expect(await isActive()).toEqual([true, true]);
  });
});

describe("request ids and the access log", () => {
  it("echoes a sane x-request-id, and logs one JSON line per request with the key id, never the key", async () => {
    const logKey = await freshKey();
    const response = await call(`${server.url}/v1/chatbots?x=1`, { key: logKey, headers: { "x-request-id": "trace-123" } });
    expect(response.headers.get("x-request-id")).toBe("trace-123");
    const line = server.logs.find((entry) => entry.request_id === "trace-123")!;
    expect(line).toMatchObject({ level: "info", method: "GET", path: "/v1/chatbots", status: 200, key_id: expect.any(String) });
    expect(typeof line.duration_ms).toBe("number");
    expect(JSON.stringify(server.logs)).not.toContain(logKey);
    const generated = await call(`${server.url}/healthz`, { headers: { "x-request-id": "bad id with spaces" } });
    expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("redacts key-shaped text a client puts in the path or the request id from the access line", async () => {
    const pathSecret = `prl_${"p".repeat(43)}`;
    const idSecret = "sk-proj-abcdef123456";
    const response = await call(`${server.url}/v1/chatbots/${pathSecret}`, { key: await freshKey(), headers: { "x-request-id": idSecret } });
    expect(response).toMatchObject({ status: 404, json: { detail: "Chatbot not found." } });
    expect(response.headers.get("x-request-id")).toBe(idSecret);
    const line = server.logs.find((entry) => entry.path === "/v1/chatbots/[redacted]")!;
    expect(line).toMatchObject({ level: "info", msg: "request", request_id: "[redacted]", method: "GET", status: 404 });
    expect(Object.keys(line)).toEqual(["level", "msg", "request_id", "method", "path", "status", "duration_ms", "key_id"]);
    expect(JSON.stringify(server.logs)).not.toContain(pathSecret);
  });
});
