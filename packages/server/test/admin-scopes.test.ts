import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, UNKNOWN_ID, type OperatorServer } from "./admin-test-support.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});

const SCOPE_DETAIL = "This API key cannot manage chatbots; use a key with the admin scope.";

/** Every operator route of docs/design.md §9, with the ids of a real resource where it takes one. */
function adminRoutes(botId: string, id: string): [string, string][] {
  return [
    ["GET", "/v1/admin/chatbots"],
    ["POST", "/v1/admin/chatbots"],
    ["GET", `/v1/admin/chatbots/${botId}`],
    ["PATCH", `/v1/admin/chatbots/${botId}`],
    ["DELETE", `/v1/admin/chatbots/${botId}`],
    ["GET", `/v1/admin/chatbots/${botId}/documents`],
    ["POST", `/v1/admin/chatbots/${botId}/documents`],
    ["DELETE", `/v1/admin/chatbots/${botId}/documents/${id}`],
    ["POST", `/v1/admin/chatbots/${botId}/search`],
    ["GET", `/v1/admin/ingestions/${id}`],
    ["GET", "/v1/admin/conversations"],
    ["GET", `/v1/admin/conversations/${id}`],
    ["POST", `/v1/admin/conversations/${id}/takeover`],
    ["DELETE", `/v1/admin/conversations/${id}/takeover`],
    ["POST", `/v1/admin/conversations/${id}/messages`],
    ["POST", `/v1/admin/conversations/${id}/read`],
    ["GET", "/v1/admin/events"],
    ["GET", "/v1/admin/keys"],
    ["POST", "/v1/admin/keys"],
    ["DELETE", `/v1/admin/keys/${id}`],
    ["GET", "/v1/admin/webhooks"],
    ["POST", "/v1/admin/webhooks"],
    ["DELETE", `/v1/admin/webhooks/${id}`],
    ["GET", "/v1/admin/webhook-deliveries"],
    ["POST", `/v1/admin/webhook-deliveries/${id}/retry`],
    ["GET", "/v1/admin/usage"],
  ];
}

describe("key scopes on the operator API", () => {
  it("answers a chat key 403 with the exact text on every admin route, before any body, and changes nothing", async () => {
    const { api, alice, runtime } = server;
    await server.chat(alice, "scoped", "Hello");
    const conversationId = (runtime.database.prepare("SELECT id FROM conversations WHERE session_id = 'scoped'").get() as { id: string }).id;
    const routes = [UNKNOWN_ID, conversationId].flatMap((id) => adminRoutes(alice.botId, id));
    // A fresh chat key for each route keeps the run inside a chat key's 60 requests a minute.
    const chatKeys = await Promise.all(routes.map(async () => (await runtime.parley.admin.createApiKey({ userId: alice.userId })).key));
    const tables = ["chatbots", "api_keys", "webhook_subscriptions", "messages", "ingestions", "outbox_events"];
    const before = tables.map((table) => server.count(table));
    for (const [index, [method, path]] of routes.entries()) {
      const sendsBody = method === "POST" || method === "PATCH";
      const bodies = sendsBody ? [{ name: "x", provider: "openai", model: "m", content: "hi", query: "q", url: "http://127.0.0.1/", title: "t", text: "t" }, undefined] : [undefined];
      for (const body of bodies) {
        // A valid body, and a body that is not even JSON: the scope is checked first either way.
        const answer = await api(chatKeys[index]!, method, path, body, body === undefined && sendsBody ? { raw: "{not json", contentType: "text/plain" } : undefined);
        expect({ method, path, status: answer.status, body: answer.json }).toEqual({ method, path, status: 403, body: { detail: SCOPE_DETAIL } });
        expect(answer.headers.get("ratelimit-limit")).toBe("60");
      }
    }
    expect(tables.map((table) => server.count(table))).toEqual(before);
    expect(server.count("conversations", "id = ? AND human_takeover = 0", conversationId)).toBe(1);
  });

  it("lets an admin key use the three spec routes and the session route exactly as a chat key does", async () => {
    const { api, alice, runtime } = server;
    const chatKey = (await runtime.parley.admin.createApiKey({ userId: alice.userId })).key;
    for (const key of [chatKey, alice.adminKey]) {
      const list = await api(key, "GET", "/v1/chatbots");
      expect(list.status).toBe(200);
      expect(list.json).toEqual([{ id: alice.botId, name: "Alice's bot", slug: "alice-s-bot", provider: "openai", is_active: true, created_at: expect.any(String) }]);
      const detail = await api(key, "GET", `/v1/chatbots/${alice.botId}`);
      expect(detail.status).toBe(200);
      expect(Object.keys(detail.json).sort()).toEqual(["created_at", "fallback_message", "id", "is_active", "name", "provider", "slug", "system_prompt"]);
      const chat = await api(key, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Hi", session_id: `spec-${key.slice(-4)}` });
      expect(chat.status).toBe(200);
      expect(chat.json).toEqual({ response: "This is the fake model's reply." });
      // The spec's order of checks is unchanged (docs/design.md §4): the body before the chatbot.
      const invalid = await api(key, "POST", `/v1/chatbots/${UNKNOWN_ID}/chat`, { message: 5, session_id: "s" });
      expect(invalid.status).toBe(422);
      const missing = await api(key, "POST", `/v1/chatbots/${UNKNOWN_ID}/chat`, { message: "Hi", session_id: "s" });
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ detail: "Chatbot not found." });
    }
    // Unknown methods are 405 with the allowed ones, on the spec routes and the operator API alike.
    for (const [method, path, allow] of [
      ["POST", "/v1/admin/events", "GET"],
      ["PUT", "/v1/admin/chatbots", "GET, POST"],
      ["GET", `/v1/admin/chatbots/${alice.botId}/search`, "POST"],
    ]) {
      const answer = await api(alice.adminKey, method!, path!, method === "GET" ? undefined : {});
      expect({ status: answer.status, allow: answer.headers.get("allow"), body: answer.json }).toEqual({ status: 405, allow, body: { detail: "Method not allowed." } });
    }
    const wrongMethod = await api(chatKey, "DELETE", "/v1/chatbots");
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
  });

  it("gives admin keys their own per-key limit, 600 a minute by default, with the same headers and 429 shape", async () => {
    const { api, alice, runtime } = server;
    const fresh = await runtime.parley.admin.createApiKey({ userId: alice.userId, scope: "admin" });
    for (let index = 1; index <= 600; index += 1) {
      const answer = await api(fresh.key, "GET", "/v1/admin/usage");
      if (answer.status !== 200 || answer.headers.get("ratelimit-remaining") !== String(600 - index)) {
        throw new Error(`request ${index}: ${answer.status} remaining ${answer.headers.get("ratelimit-remaining")}`);
      }
      expect(answer.headers.get("ratelimit-limit")).toBe("600");
    }
    const refused = await api(fresh.key, "GET", "/v1/admin/usage");
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ detail: "API rate limit exceeded. Maximum 600 requests per minute." });
    expect(refused.headers.get("ratelimit-limit")).toBe("600");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    // The same key on a spec route shares that budget; the tenant's other keys do not.
    const sharedBudget = await api(fresh.key, "GET", "/v1/chatbots");
    expect({ status: sharedBudget.status, body: sharedBudget.json, limit: sharedBudget.headers.get("ratelimit-limit"), remaining: sharedBudget.headers.get("ratelimit-remaining") }).toEqual({
      status: 429,
      body: { detail: "API rate limit exceeded. Maximum 600 requests per minute." },
      limit: "600",
      remaining: "0",
    });
    expect((await api(alice.adminKey, "GET", "/v1/admin/usage")).status).toBe(200);
    const chatKey = (await runtime.parley.admin.createApiKey({ userId: alice.userId })).key;
    expect((await api(chatKey, "GET", "/v1/chatbots")).headers.get("ratelimit-limit")).toBe("60");
  });

  it("takes the admin keys' limit from PARLEY_ADMIN_KEY_RATE_LIMIT, leaving chat keys at theirs", async () => {
    const limited = await startOperatorServer({ env: { PARLEY_ADMIN_KEY_RATE_LIMIT: "5" } });
    try {
      for (let index = 1; index <= 5; index += 1) expect((await limited.api(limited.alice.adminKey, "GET", "/v1/admin/keys")).headers.get("ratelimit-remaining")).toBe(String(5 - index));
      const refused = await limited.api(limited.alice.adminKey, "GET", "/v1/admin/keys");
      expect({ status: refused.status, body: refused.json }).toEqual({ status: 429, body: { detail: "API rate limit exceeded. Maximum 5 requests per minute." } });
      expect((await limited.api(limited.alice.chatKey, "GET", "/v1/chatbots")).headers.get("ratelimit-limit")).toBe("60");
    } finally {
      await limited.close();
    }
  });
});
