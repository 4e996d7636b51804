import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, UNKNOWN_ID, type OperatorServer } from "./admin-test-support.js";

let server: OperatorServer;
let conversationId: string;
beforeAll(async () => {
  server = await startOperatorServer();
  await server.chat(server.alice, "visitor", "Hello");
  conversationId = (await server.api(server.alice.adminKey, "GET", "/v1/admin/conversations")).json.data[0].id as string;
});
afterAll(async () => {
  expect(server.logs.filter((line) => line.level === "error")).toEqual([]);
  await server?.close();
});

/**
 * Every row of every table the operator API writes, to show that a refused write left nothing.
 * Keys' last uses from the requests before are written first: SQLite batches them for a second
 * (docs/design.md §9, the key view), and reading the keys through the storage writes them.
 */
async function snapshot() {
  await server.runtime.parley.admin.showUser("alice@example.com");
  const tables = ["chatbots", "conversations", "messages", "api_keys", "webhook_subscriptions", "webhook_deliveries", "ingestions", "outbox_events", "search_documents"];
  return Object.fromEntries(tables.map((table) => [table, server.runtime.database.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all()]));
}

/** Sends a request as Alice's admin key and expects the status and detail, with nothing written. */
async function refused(method: string, path: string, body: unknown, status: number, detail: string, raw?: { raw?: string; contentType?: string }) {
  const before = await snapshot();
  const answer = await server.api(server.alice.adminKey, method, path, body, raw);
  expect({ method, path, body, status: answer.status, answer: answer.json }).toEqual({ method, path, body, status, answer: { detail } });
  expect(await snapshot()).toEqual(before);
}

describe("bad input on the operator API: a clear detail, never a 500, nothing half-written", () => {
  it("refuses wrong types and missing fields with 422 naming the field", async () => {
    const bot = `/v1/admin/chatbots/${server.alice.botId}`;
    await refused("POST", "/v1/admin/chatbots", { name: 5, provider: "openai", model: "m" }, 422, "name: must be a string");
    await refused("POST", "/v1/admin/chatbots", { name: "N", provider: "openai" }, 422, "model: is required");
    await refused("POST", "/v1/admin/chatbots", [], 422, "body: must be a JSON object");
    await refused("POST", "/v1/admin/chatbots", null, 422, "body: must be a JSON object");
    await refused("PATCH", bot, { is_active: "yes" }, 422, "is_active: must be a boolean");
    await refused("PATCH", bot, { system_prompt: 12 }, 422, "system_prompt: must be a string");
    await refused("POST", `${bot}/search`, { query: ["a"] }, 422, "query: must be a string");
    await refused("POST", `${bot}/search`, { query: "a", limit: 2.5 }, 422, "limit: must be a whole number");
    await refused("POST", `${bot}/search`, { query: "   " }, 422, "query: must be a non-empty string");
    await refused("POST", `${bot}/documents`, { title: 1, text: "x" }, 422, "title: must be a string");
    await refused("POST", `${bot}/documents`, { text: "no title" }, 422, "body: must hold either title and text, or url");
    await refused("POST", `${bot}/documents`, { title: "Blank", text: " \n " }, 422, "text: must be a non-empty string");
    await refused("POST", `${bot}/documents`, { title: "   ", text: "Some text" }, 422, "title: must be a non-empty string");
    await refused("POST", `/v1/admin/conversations/${conversationId}/messages`, { content: 7 }, 422, "content: must be a string");
    await refused("POST", `/v1/admin/conversations/${conversationId}/messages`, {}, 422, "content: is required");
    await refused("POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "   " }, 422, "content: must be a non-empty string");
    await refused("POST", "/v1/admin/keys", { scope: "root" }, 422, "scope: must be one of chat, admin, agent");
    await refused("POST", "/v1/admin/keys", { name: 3 }, 422, "name: must be a string");
    await refused("POST", "/v1/admin/webhooks", { url: "ftp://example.com/hook" }, 422, expect.stringMatching(/^url: /) as unknown as string);
    await refused("POST", "/v1/admin/webhooks", { url: "https://example.com/hook", events: "message.sent" }, 422, "events: must be an array");
    await refused("POST", "/v1/admin/webhooks", { url: "https://example.com/hook", events: ["message.deleted"] }, 422, expect.stringMatching(/^events\.0: must be one of conversation\.started, message\.received, message\.sent/) as unknown as string);
  });

  it("refuses a provider outside the three, a PATCH that would empty a required field, and an empty PATCH", async () => {
    const bot = `/v1/admin/chatbots/${server.alice.botId}`;
    await refused("POST", "/v1/admin/chatbots", { name: "N", provider: "mistral", model: "m" }, 422, "provider: must be one of openai, anthropic, ollama");
    await refused("PATCH", bot, { provider: "OpenAI" }, 422, "provider: must be one of openai, anthropic, ollama");
    await refused("PATCH", bot, { name: "   " }, 422, "name: must be a non-empty string");
    await refused("PATCH", bot, { name: "" }, 422, "name: must be a non-empty string");
    await refused("PATCH", bot, { model: "" }, 422, "model: must be a non-empty string");
    await refused("PATCH", bot, { fallback_message: " \n " }, 422, "fallback_message: must be a non-empty string");
    await refused("PATCH", bot, { name: "x".repeat(201) }, 422, "name: must be at most 200 characters");
    await refused("PATCH", bot, {}, 422, "body: must hold at least one field to change");
    // A valid field next to an invalid one changes nothing either.
    await refused("PATCH", bot, { name: "Renamed", model: "" }, 422, "model: must be a non-empty string");
  });

  it("answers 404 to unknown and malformed ids, a reply to a deleted chatbot's conversation included", async () => {
    for (const id of [UNKNOWN_ID, "not-an-id", "%zz", "00000000-0000-4000-8000-00000000000g", "x".repeat(300)]) {
      const segment = encodeURIComponent(id);
      await refused("GET", `/v1/admin/chatbots/${segment}`, undefined, 404, "Chatbot not found.");
      await refused("PATCH", `/v1/admin/chatbots/${segment}`, { name: "N" }, 404, "Chatbot not found.");
      await refused("DELETE", `/v1/admin/chatbots/${segment}`, undefined, 404, "Chatbot not found.");
      await refused("POST", `/v1/admin/chatbots/${segment}/documents`, { title: "T", text: "X" }, 404, "Chatbot not found.");
      await refused("DELETE", `/v1/admin/chatbots/${server.alice.botId}/documents/${segment}`, undefined, 404, "Document not found.");
      await refused("GET", `/v1/admin/ingestions/${segment}`, undefined, 404, "Ingestion not found.");
      await refused("GET", `/v1/admin/conversations/${segment}`, undefined, 404, "Conversation not found.");
      await refused("POST", `/v1/admin/conversations/${segment}/takeover`, undefined, 404, "Conversation not found.");
      await refused("POST", `/v1/admin/conversations/${segment}/messages`, { content: "Hi" }, 404, "Conversation not found.");
      await refused("DELETE", `/v1/admin/keys/${segment}`, undefined, 404, "API key not found.");
      await refused("DELETE", `/v1/admin/webhooks/${segment}`, undefined, 404, "Webhook not found.");
      await refused("POST", `/v1/admin/webhook-deliveries/${segment}/retry`, undefined, 404, "Delivery not found.");
      await refused("GET", `/v1/admin/conversations?chatbot_id=${segment}`, undefined, 404, "Chatbot not found.");
      await refused("POST", "/v1/admin/webhooks", { url: "https://example.com/hook", chatbot_id: id }, 404, "Chatbot not found.");
    }
    await refused("GET", `/v1/admin/conversations/${conversationId}?after=${UNKNOWN_ID}`, undefined, 422, "after: must be the id of a message of this conversation");
    // A message of another conversation is not a position in this one.
    await server.chat(server.alice, "elsewhere", "Another conversation");
    const elsewhere = (await server.api(server.alice.chatKey, "GET", `/v1/chatbots/${server.alice.botId}/sessions/elsewhere/messages`)).json.data[0].id as string;
    await refused("GET", `/v1/admin/conversations/${conversationId}?after=${elsewhere}`, undefined, 422, "after: must be the id of a message of this conversation");
    const session = await server.api(server.alice.chatKey, "GET", `/v1/chatbots/${server.alice.botId}/sessions/visitor/messages?after=${elsewhere}`);
    expect({ status: session.status, body: session.json }).toEqual({ status: 422, body: { detail: "after: must be the id of a message of this conversation" } });
    const longSession = await server.api(server.alice.chatKey, "GET", `/v1/chatbots/${server.alice.botId}/sessions/${"s".repeat(300)}/messages`);
    expect({ status: longSession.status, body: longSession.json }).toEqual({ status: 404, body: { detail: "Conversation not found." } });

    const doomed = (await server.api(server.alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Doomed", provider: "openai", model: "gpt-test" })).json.id as string;
    const chatKey = server.alice.chatKey;
    expect((await server.api(chatKey, "POST", `/v1/chatbots/${doomed}/chat`, { message: "Hi", session_id: "doomed" })).status).toBe(200);
    const doomedConversation = (await server.api(server.alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${doomed}`)).json.data[0].id as string;
    expect((await server.api(server.alice.adminKey, "DELETE", `/v1/admin/chatbots/${doomed}`)).status).toBe(204);
    await refused("POST", `/v1/admin/conversations/${doomedConversation}/messages`, { content: "Anyone there?" }, 404, "Conversation not found.");
    await refused("POST", `/v1/admin/conversations/${doomedConversation}/takeover`, undefined, 404, "Conversation not found.");
    await refused("GET", `/v1/admin/conversations/${doomedConversation}`, undefined, 404, "Conversation not found.");
    const listed = (await server.api(server.alice.adminKey, "GET", "/v1/admin/conversations")).json.data as { id: string }[];
    expect(listed.map((row) => row.id)).not.toContain(doomedConversation);
  });

  it("refuses bad cursors, limits out of range and unknown status filters with 422", async () => {
    const lists = ["/v1/admin/chatbots", `/v1/admin/chatbots/${server.alice.botId}/documents`, "/v1/admin/conversations", "/v1/admin/keys", "/v1/admin/webhooks", "/v1/admin/webhook-deliveries"];
    const otherListsCursor = Buffer.from(JSON.stringify(["elsewhere", "x"])).toString("base64url");
    for (const list of lists) {
      for (const limit of ["0", "101", "abc", "-1", "1.5", "", "1e2"]) {
        await refused("GET", `${list}?limit=${limit}`, undefined, 422, "limit: must be a whole number from 1 to 100");
      }
      for (const cursor of ["!!!", "bm90IGpzb24", otherListsCursor, Buffer.from("[]").toString("base64url"), "A".repeat(600)]) {
        await refused("GET", `${list}?cursor=${cursor}`, undefined, 422, "cursor: must be a cursor returned by this list");
      }
      expect((await server.api(server.alice.adminKey, "GET", `${list}?limit=100`)).status).toBe(200);
    }
    await refused("GET", "/v1/admin/conversations?status=open", undefined, 422, "status: must be one of bot, human, attention");
    await refused("GET", "/v1/admin/conversations?status=", undefined, 422, "status: must be one of bot, human, attention");
    await refused("GET", "/v1/admin/webhook-deliveries?status=sent", undefined, 422, "status: must be one of pending, delivered, failed");
  });

  it("refuses bodies that are too large (413), not JSON (400) or not declared JSON (415)", async () => {
    const big = JSON.stringify({ title: "Big", text: "x".repeat(1024 * 1024) });
    await refused("POST", `/v1/admin/chatbots/${server.alice.botId}/documents`, undefined, 413, "Request body must not exceed 1 MiB.", { raw: big });
    await refused("POST", "/v1/admin/chatbots", undefined, 400, "Request body must be valid JSON.", { raw: '{"name": "N",' });
    await refused("PATCH", `/v1/admin/chatbots/${server.alice.botId}`, undefined, 400, "Request body must be valid JSON.", { raw: "" });
    await refused("POST", `/v1/admin/conversations/${conversationId}/messages`, undefined, 415, "Content-Type must be application/json.", { raw: "content=hi", contentType: "application/x-www-form-urlencoded" });
    await refused("POST", "/v1/admin/keys", undefined, 415, "Content-Type must be application/json.", { raw: "{}", contentType: "text/plain" });
  });
});
