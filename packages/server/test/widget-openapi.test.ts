import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { UNKNOWN_ID } from "./admin-test-support.js";
import { expectDocumented } from "./openapi-support.js";
import { openStream } from "./sse-client.js";
import { startWidgetServer, type WidgetServer } from "./widget-test-support.js";

// Every answer of the widget's routes is the one docs/openapi.json documents: status, headers,
// schema and the words of its detail.

let server: WidgetServer;
beforeAll(async () => {
  server = await startWidgetServer({ PARLEY_WIDGET_SESSIONS_PER_HOUR: "2", PARLEY_WIDGET_MESSAGES_PER_MINUTE: "6" });
});
afterAll(async () => {
  await server?.close();
});

const ORIGIN = "https://shop.example.com";

describe("docs/openapi.json and the widget's routes", () => {
  it("documents every answer they give, from an allowed website", async () => {
    const { alice, enableWidget, visit, runtime, url, api } = server;
    await enableWidget(alice, { allowed_origins: [ORIGIN] });
    const headers = { origin: ORIGIN };
    const check = async (method: string, template: string, path: string, options: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
      const answer = await visit(method, path, { ...options, headers: { ...headers, ...options.headers } });
      expectDocumented(template, method.toLowerCase(), answer);
      return answer;
    };
    const bot = `/v1/widget/${alice.botId}`;
    expect((await check("GET", "/v1/widget/{chatbot_id}", bot)).status).toBe(200);
    expect((await check("GET", "/v1/widget/{chatbot_id}", `/v1/widget/${UNKNOWN_ID}`)).status).toBe(404);
    expect((await check("GET", "/v1/widget/{chatbot_id}", bot, { headers: { origin: "https://evil.test" } })).status).toBe(403);
    const session = await check("POST", "/v1/widget/{chatbot_id}/sessions", `${bot}/sessions`, { body: {} });
    expect(session.status).toBe(201);
    const token = session.json.token as string;
    const identity = await check("POST", "/v1/widget/{chatbot_id}/sessions", `${bot}/sessions`, { body: { user_id: "7", user_hash: "00" } });
    expect(identity.status, identity.text).toBe(403);
    expect((await check("POST", "/v1/widget/{chatbot_id}/sessions", `${bot}/sessions`, { body: { user_id: "" } })).status).toBe(429);
    const reply = await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: { message: "Hello" } });
    expect(reply.status).toBe(200);
    const feedback = "/v1/widget/{chatbot_id}/messages/{message_id}/feedback";
    const rated = `${bot}/messages/${reply.json.reply.id as string}/feedback`;
    expect((await check("POST", feedback, rated, { token, body: { rating: "up", comment: "Clear." } })).status).toBe(204);
    expect((await check("POST", feedback, rated, { token, body: { rating: "sideways" } })).status).toBe(422);
    expect((await check("POST", feedback, `${bot}/messages/${UNKNOWN_ID}/feedback`, { token, body: { rating: "down" } })).status).toBe(404);
    expect((await check("POST", feedback, rated, { body: { rating: "up" } })).status).toBe(401);
    expect((await check("POST", feedback, `/v1/widget/${UNKNOWN_ID}/messages/${reply.json.reply.id as string}/feedback`, { token, body: { rating: "up" } })).status).toBe(404);
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: {} })).status).toBe(422);
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { body: { message: "Hi" } })).status).toBe(401);
    const conversation = (await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`)).json.data[0].id as string;
    await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversation}/takeover`);
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: { message: "Hello?" } })).status).toBe(202);
    await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversation}/takeover`);
    await runtime.parley.admin.pauseChatbot(alice.botId);
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: { message: "Paused?" } })).status).toBe(403);
    await runtime.parley.admin.resumeChatbot(alice.botId);
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: { message: "Third" } })).status).toBe(200);
    // The two streams (the 6th message is the streamed one): their head carries the documented headers.
    for (const [method, path, body] of [
      ["GET", `${bot}/events`, undefined],
      ["POST", `${bot}/messages`, { message: "Streamed, please." }],
    ] as const) {
      const stream = await openStream(`${url}${path}`, { method, token, body, headers });
      expect(stream.status).toBe(200);
      expect(stream.headers["access-control-allow-origin"]).toBe(ORIGIN);
      expect(stream.headers.vary).toBe("Origin");
      expect(stream.headers["x-request-id"]).toBeDefined();
      stream.drop();
    }
    expect((await check("POST", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token, body: { message: "Fourth" } })).status).toBe(429);
    const listed = await check("GET", "/v1/widget/{chatbot_id}/messages", `${bot}/messages`, { token });
    expect(listed.json.data.length).toBeGreaterThanOrEqual(4);
    expect((await check("GET", "/v1/widget/{chatbot_id}/messages", `${bot}/messages?after=${UNKNOWN_ID}`, { token })).status).toBe(422);
  });
});
