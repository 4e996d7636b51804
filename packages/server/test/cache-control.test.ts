import { failWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
let userId: string;
let botId: string;
let adminKey: string;

beforeAll(async () => {
  // A per-key limit of 2, so the third request of a key is refused.
  context = await environment({ PARLEY_KEY_RATE_LIMIT: "2" });
  server = await serve(context.env);
  const { admin } = server.runtime.parley;
  userId = (await admin.createUser({ email: "cache@example.com" })).id;
  botId = (await admin.createChatbot({ userId, name: "Cache", provider: "openai", model: "gpt-test", systemPrompt: "Secret house rules." })).id;
  // Its own limit (600 a minute) is far from reach: only the chat keys run into theirs here.
  adminKey = (await admin.createApiKey({ userId, scope: "admin" })).key;
});

afterAll(async () => {
  await server?.running.stop();
  await context?.cleanup();
});

const freshKey = async () => (await server.runtime.parley.admin.createApiKey({ userId })).key;

describe("Cache-Control", () => {
  it("is no-store on every answer of the API, the operator API and its event stream included, successes and refusals alike, and on /healthz", async () => {
    const answers: Record<string, Awaited<ReturnType<typeof call>>> = {};
    let key = await freshKey();
    answers["200 list"] = await call(`${server.url}/v1/chatbots`, { key });
    answers["200 detail (carries the system prompt)"] = await call(`${server.url}/v1/chatbots/${botId}`, { key });
    key = await freshKey();
    answers["200 chat"] = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "hello" } });
    answers["422 body"] = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "" } });
    answers["429 rate limit"] = await call(`${server.url}/v1/chatbots`, { key });
    key = await freshKey();
    // Not retried by the SDK, so the chat fails with 500 at once.
    context.openai.chat.enqueue(failWith(401));
    answers["500 provider"] = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "hello" } });
    answers["404 chatbot"] = await call(`${server.url}/v1/chatbots/00000000-0000-4000-8000-000000000000`, { key });
    answers["401 no key"] = await call(`${server.url}/v1/chatbots`);
    answers["404 route"] = await call(`${server.url}/v1/nothing-here`);
    answers["405 method"] = await call(`${server.url}/v1/chatbots`, { method: "DELETE" });
    answers["200 admin list"] = await call(`${server.url}/v1/admin/conversations`, { key: adminKey });
    answers["200 admin detail (carries the system prompt)"] = await call(`${server.url}/v1/admin/chatbots/${botId}`, { key: adminKey });
    answers["201 admin create"] = await call(`${server.url}/v1/admin/keys`, { key: adminKey, body: { name: "shown once" } });
    answers["403 admin route, chat key"] = await call(`${server.url}/v1/admin/usage`, { key: await freshKey() });
    answers["404 admin chatbot"] = await call(`${server.url}/v1/admin/chatbots/00000000-0000-4000-8000-000000000000`, { key: adminKey });
    answers["422 admin body"] = await call(`${server.url}/v1/admin/chatbots`, { key: adminKey, body: {} });
    answers["401 admin no key"] = await call(`${server.url}/v1/admin/usage`);
    answers["200 healthz"] = await call(`${server.url}/healthz`);
    answers["405 healthz"] = await call(`${server.url}/healthz`, { method: "POST" });

    expect(Object.entries(answers).map(([name, answer]) => [name, answer.status, answer.headers.get("cache-control")])).toEqual([
      ["200 list", 200, "no-store"],
      ["200 detail (carries the system prompt)", 200, "no-store"],
      ["200 chat", 200, "no-store"],
      ["422 body", 422, "no-store"],
      ["429 rate limit", 429, "no-store"],
      ["500 provider", 500, "no-store"],
      ["404 chatbot", 404, "no-store"],
      ["401 no key", 401, "no-store"],
      ["404 route", 404, "no-store"],
      ["405 method", 405, "no-store"],
      ["200 admin list", 200, "no-store"],
      ["200 admin detail (carries the system prompt)", 200, "no-store"],
      ["201 admin create", 201, "no-store"],
      ["403 admin route, chat key", 403, "no-store"],
      ["404 admin chatbot", 404, "no-store"],
      ["422 admin body", 422, "no-store"],
      ["401 admin no key", 401, "no-store"],
      ["200 healthz", 200, "no-store"],
      ["405 healthz", 405, "no-store"],
    ]);

    // The live event stream: its headers are all this needs, so the stream is left at once.
    const stream = new AbortController();
    const events = await fetch(`${server.url}/v1/admin/events`, { headers: { authorization: `Bearer ${adminKey}` }, signal: stream.signal });
    stream.abort();
    expect([events.status, events.headers.get("content-type"), events.headers.get("cache-control")]).toEqual([200, "text/event-stream; charset=utf-8", "no-store"]);
  });
});
