import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWidgetServer, type WidgetServer } from "./widget-test-support.js";

// The Origin rule, CORS, the per-address limits and the owner's quota on the widget's routes
// (docs/design.md §14), against a real server.
// The addresses below (RFC 5737 documentation ranges and 10.0.0.1) are only values of the
// X-Forwarded-For header sent to the server on 127.0.0.1: no socket ever dials them.

let server: WidgetServer;
beforeAll(async () => {
  server = await startWidgetServer({ PARLEY_WIDGET_SESSIONS_PER_HOUR: "3", PARLEY_WIDGET_MESSAGES_PER_MINUTE: "4", PARLEY_TRUST_PROXY: "true" });
});
afterAll(async () => {
  await server?.close();
});

const ORIGIN_REFUSED = { detail: "This website may not use this chatbot." };

describe("the Origin rule", () => {
  it("lets pass no Origin and the server's own; gives an allowed origin CORS answers; refuses any other with 403", async () => {
    const { alice, enableWidget, visit, url } = server;
    await enableWidget(alice, { allowed_origins: ["https://shop.example.com", "http://localhost:3000"] });
    const path = `/v1/widget/${alice.botId}`;
    const forwarded = { "x-forwarded-for": "198.51.100.1" };
    const none = await visit("GET", path);
    expect(none.status).toBe(200);
    expect(none.headers.get("access-control-allow-origin")).toBeNull();
    const own = await visit("GET", path, { headers: { origin: url } });
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-allow-origin")).toBeNull();
    for (const origin of ["https://shop.example.com", "http://localhost:3000"]) {
      const allowed = await visit("GET", path, { headers: { origin } });
      expect(allowed.status).toBe(200);
      expect(allowed.headers.get("access-control-allow-origin")).toBe(origin);
      expect(allowed.headers.get("vary")).toBe("Origin");
      expect(allowed.headers.get("access-control-expose-headers")).toContain("Retry-After");
    }
    // Exact origins: another scheme, port, subdomain or a look-alike is another website.
    for (const origin of ["http://shop.example.com", "https://shop.example.com:8443", "https://evil.shop.example.com", "https://shop.example.com.evil.test", "null", "http://localhost:3001"]) {
      const refused = await visit("POST", `/v1/widget/${alice.botId}/sessions`, { body: {}, headers: { origin, ...forwarded } });
      expect(refused.status, origin).toBe(403);
      expect(refused.json).toEqual(ORIGIN_REFUSED);
      expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    }
    // The refusal comes before the token: a refused website learns nothing of sessions.
    expect(await visit("GET", `/v1/widget/${alice.botId}/messages`, { headers: { origin: "https://evil.test" } })).toMatchObject({ status: 403, json: ORIGIN_REFUSED });
    // An allowed origin reads refusals too (CORS headers on a 401).
    const unauthorized = await visit("GET", `/v1/widget/${alice.botId}/messages`, { headers: { origin: "https://shop.example.com" } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
  });

  it("answers an allowed origin's preflight with the methods and the headers the routes take; refuses another's", async () => {
    const { alice, enableWidget, url } = server;
    await enableWidget(alice, { allowed_origins: ["https://shop.example.com"] });
    const preflight = (path: string, origin: string) =>
      fetch(`${url}${path}`, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" } });
    const allowed = await preflight(`/v1/widget/${alice.botId}/messages`, "https://shop.example.com");
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get("access-control-allow-origin")).toBe("https://shop.example.com");
    expect(allowed.headers.get("access-control-allow-methods")).toBe("POST, GET, OPTIONS");
    expect(allowed.headers.get("access-control-allow-headers")).toMatch(/^Authorization, Content-Type/);
    expect(allowed.headers.get("vary")).toBe("Origin");
    const refused = await preflight(`/v1/widget/${alice.botId}/messages`, "https://evil.test");
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(ORIGIN_REFUSED);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    const unknown = await preflight(`/v1/widget/00000000-0000-4000-8000-000000000000/messages`, "https://shop.example.com");
    expect(unknown.status).toBe(404);
    // Admin routes have no preflight: no CORS for API keys.
    expect((await preflight("/v1/admin/chatbots", "https://shop.example.com")).status).toBe(405);
  });
});

describe("the limits per client address", () => {
  it("new sessions: PARLEY_WIDGET_SESSIONS_PER_HOUR from one address, then 429 with Retry-After; another address is counted apart (first X-Forwarded-For hop)", async () => {
    const { alice, enableWidget, visit } = server;
    await enableWidget(alice, { allowed_origins: [] });
    const start = (address: string) => visit("POST", `/v1/widget/${alice.botId}/sessions`, { body: {}, headers: { "x-forwarded-for": `${address}, 10.0.0.1` } });
    for (let index = 0; index < 3; index++) expect((await start("203.0.113.7")).status).toBe(201);
    const refused = await start("203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: "Too many new chat sessions from this address: at most 3 an hour. Try again later." });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(60);
    // The proxy's own hop is not the client: another first hop is another address.
    expect((await start("203.0.113.8")).status).toBe(201);
  });

  it("messages: PARLEY_WIDGET_MESSAGES_PER_MINUTE from one address across sessions, then 429 naming the limit, nothing stored", async () => {
    const { alice, enableWidget, visit, newSession } = server;
    await enableWidget(alice);
    const headers = { "x-forwarded-for": "192.0.2.55" };
    const one = await newSession(alice.botId, {}, headers);
    const two = await newSession(alice.botId, {}, headers);
    const send = (token: string, message: string) => visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message }, headers });
    for (const [token, message] of [[one.token, "a"], [two.token, "b"], [one.token, "c"], [two.token, "d"]] as const) expect((await send(token, message)).status).toBe(200);
    const refused = await send(one.token, "e");
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: "Too many chat messages from this address: at most 4 a minute. Slow down and try again." });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: one.token })).json.data.map((message: { content: string }) => message.content)).not.toContain("e");
    // Reading is not limited.
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: one.token, headers })).status).toBe(200);
  });
});

describe("the owner's quota", () => {
  it("is exact under concurrent visitor messages: the plan's limit accepted, every other one 429 with the quota's text", async () => {
    const { runtime, enableWidget, api, visit, newSession } = server;
    const { admin } = runtime.parley;
    await admin.setPlan("tiny", 5);
    const userId = (await admin.createUser({ email: "tiny@example.com", plan: "tiny" })).id;
    const adminKey = (await admin.createApiKey({ userId, name: "operator", scope: "admin" })).key;
    const botId = (await admin.createChatbot({ userId, name: "Tiny", provider: "openai", model: "gpt-test" })).id;
    await enableWidget({ userId, adminKey, chatKey: "", botId });
    // Twelve visitors, each from its own address, each sending one message at once.
    const visitors = await Promise.all(Array.from({ length: 12 }, (_, index) => newSession(botId, {}, { "x-forwarded-for": `198.18.0.${index + 1}` })));
    const answers = await Promise.all(
      visitors.map((visitor, index) => visit("POST", `/v1/widget/${botId}/messages`, { token: visitor.token, body: { message: `Question ${index}` }, headers: { "x-forwarded-for": `198.18.0.${index + 1}` } })),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(7);
    for (const answer of refused) {
      expect(answer.status).toBe(429);
      expect(answer.json.detail).toMatch(/^Monthly message limit reached: the tiny plan allows 5 messages per month\./);
    }
    expect((await api(adminKey, "GET", "/v1/admin/usage")).json).toMatchObject({ used: 5, remaining: 0 });
  });
});

describe("X-Forwarded-For without PARLEY_TRUST_PROXY", () => {
  it("is ignored: a visitor who varies it is still one address, refused after the limit", async () => {
    const direct = await startWidgetServer({ PARLEY_WIDGET_SESSIONS_PER_HOUR: "3" });
    try {
      const { alice, enableWidget, visit } = direct;
      await enableWidget(alice, { allowed_origins: [] });
      const start = (address: string) => visit("POST", `/v1/widget/${alice.botId}/sessions`, { body: {}, headers: { "x-forwarded-for": address } });
      // Header values only, other than the socket's own 127.0.0.1: nothing dials them.
      for (const address of ["127.0.0.2", "127.0.0.3", "127.0.0.4"]) expect((await start(address)).status).toBe(201);
      const spoofed = await start("127.0.0.5");
      expect(spoofed.status).toBe(429);
      expect(spoofed.json).toEqual({ detail: "Too many new chat sessions from this address: at most 3 an hour. Try again later." });
    } finally {
      await direct.close();
    }
  });
});
