import { failWith, replyWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { viewValidators as adminResponseValidators } from "./openapi-support.js";
import { startOperatorServer, TIME, UNKNOWN_ID, type OperatorServer } from "./admin-test-support.js";
import { openEventStream } from "./sse-client.js";

let server: OperatorServer;
let ana: string;
let ben: string;
beforeAll(async () => {
  server = await startOperatorServer();
  const { admin } = server.runtime.parley;
  ana = (await admin.createApiKey({ userId: server.alice.userId, name: "Ana", scope: "agent" })).key;
  ben = (await admin.createApiKey({ userId: server.alice.userId, name: "Ben", scope: "agent" })).key;
});
afterAll(async () => {
  await server?.close();
});

const validateEventBody = adminResponseValidators.EventBody;
const AGENT_DETAIL = "This API key belongs to an agent: it may answer conversations, not manage chatbots, keys or webhooks.";

/** The id of the conversation of a session of Alice's bot. */
const conversationOf = (sessionId: string) => (server.runtime.database.prepare("SELECT id FROM conversations WHERE session_id = ?").get(sessionId) as { id: string }).id;

describe("the agent scope (docs/design.md §16)", () => {
  it("answers an agent key 403 with the exact text on every route that is not about conversations, before any body, and changes nothing", async () => {
    const { api, alice, runtime } = server;
    await server.chat(alice, "forbidden", "Hello");
    const id = conversationOf("forbidden");
    const keyId = (await runtime.parley.admin.showUser(alice.userId)).keys[0]!.id;
    const routes: [string, string][] = [
      ["POST", "/v1/admin/chatbots"],
      ["GET", `/v1/admin/chatbots/${alice.botId}`],
      ["PATCH", `/v1/admin/chatbots/${alice.botId}`],
      ["DELETE", `/v1/admin/chatbots/${alice.botId}`],
      ["POST", `/v1/admin/chatbots/${alice.botId}/widget-secret`],
      ["GET", `/v1/admin/chatbots/${alice.botId}/documents`],
      ["POST", `/v1/admin/chatbots/${alice.botId}/documents`],
      ["DELETE", `/v1/admin/chatbots/${alice.botId}/documents/${UNKNOWN_ID}`],
      ["POST", `/v1/admin/chatbots/${alice.botId}/search`],
      ["GET", `/v1/admin/ingestions/${UNKNOWN_ID}`],
      ["GET", "/v1/admin/keys"],
      ["POST", "/v1/admin/keys"],
      ["DELETE", `/v1/admin/keys/${keyId}`],
      ["GET", "/v1/admin/webhooks"],
      ["POST", "/v1/admin/webhooks"],
      ["DELETE", `/v1/admin/webhooks/${UNKNOWN_ID}`],
      ["GET", "/v1/admin/webhook-deliveries"],
      ["POST", `/v1/admin/webhook-deliveries/${UNKNOWN_ID}/retry`],
      ["GET", "/v1/admin/usage"],
    ];
    const tables = ["chatbots", "api_keys", "webhook_subscriptions", "messages", "ingestions", "outbox_events"];
    const before = tables.map((table) => server.count(table));
    for (const [method, path] of routes) {
      const body = method === "POST" || method === "PATCH" ? { name: "x", provider: "openai", model: "m", query: "q", url: "http://127.0.0.1/", scope: "admin", is_active: false } : undefined;
      const answer = await api(ana, method, path, body);
      expect({ method, path, status: answer.status, body: answer.json }).toEqual({ method, path, status: 403, body: { detail: AGENT_DETAIL } });
    }
    expect(tables.map((table) => server.count(table))).toEqual(before);
    expect(server.count("api_keys", "revoked_at IS NULL")).toBe(before[1]);
    expect(server.count("chatbots", "is_active = 1 AND deleted_at IS NULL")).toBe(2);
    expect(id).toBeTruthy();
  });

  it("lets an agent list the chatbots and work a conversation: take over, reply by name, hand back, follow the events", async () => {
    const { api, alice, url } = server;
    const stream = await openEventStream(url, ana);
    expect(stream.status).toBe(200);
    await server.chat(alice, "worked", "Where is my order?");
    const id = conversationOf("worked");
    expect((await api(ana, "GET", "/v1/admin/chatbots")).json.data.map((bot: { id: string }) => bot.id)).toEqual([alice.botId]);
    const listed = await api(ana, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`);
    expect(listed.status).toBe(200);
    expect(adminResponseValidators.ConversationPage(listed.json)).toBe(true);
    const taken = await api(ana, "POST", `/v1/admin/conversations/${id}/takeover`);
    expect(taken.status).toBe(200);
    expect(taken.json.events).toEqual([{ type: "takeover_started", by: "Ana", at: expect.stringMatching(TIME) }]);
    const reply = await api(ana, "POST", `/v1/admin/conversations/${id}/messages`, { content: "Ana here, checking." });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ author: "agent", agent_name: "Ana", content: "Ana here, checking." });
    expect(adminResponseValidators.Message(reply.json)).toBe(true);
    const second = await api(ben, "POST", `/v1/admin/conversations/${id}/messages`, { content: "Ben too." });
    expect(second.json.agent_name).toBe("Ben");
    const back = await api(ben, "DELETE", `/v1/admin/conversations/${id}/takeover`);
    expect(back.json.events.map((event: { type: string; by: string }) => [event.type, event.by])).toEqual([
      ["takeover_started", "Ana"],
      ["takeover_ended", "Ben"],
    ]);
    const detail = await api(alice.adminKey, "GET", `/v1/admin/conversations/${id}`);
    expect(adminResponseValidators.ConversationWithMessages(detail.json)).toBe(true);
    expect(detail.json.messages.map((message: { author: string; agent_name: string | null }) => [message.author, message.agent_name])).toEqual([
      ["user", null],
      ["model", null],
      ["agent", "Ana"],
      ["agent", "Ben"],
    ]);
    expect(detail.json.last_message).toMatchObject({ author: "agent", agent_name: "Ben" });
    // The live stream carries the agents' names on message.sent.
    // Waits for the third message.sent (the stream's own bound, not Vitest's default second).
    await expect.poll(() => stream.events.filter((event) => event.event === "message.sent").length, { timeout: 10_000, interval: 10 }).toBe(3);
    const sent = stream.events.filter((event) => event.event === "message.sent").map((event) => JSON.parse(event.data) as { data: { agent_name: string | null } });
    expect(sent.map((body) => body.data.agent_name)).toEqual([null, "Ana", "Ben"]);
    for (const body of sent) expect(validateEventBody(body)).toBe(true);
    stream.drop();
  });

  it("refuses an agent key without a name, and the agent scope is offered by the keys route", async () => {
    const { api, alice } = server;
    expect(await api(alice.adminKey, "POST", "/v1/admin/keys", { scope: "agent" })).toMatchObject({ status: 422, json: { detail: "name: an agent key needs the agent's name" } });
    const created = await api(alice.adminKey, "POST", "/v1/admin/keys", { scope: "agent", name: "Cleo" });
    expect(created).toMatchObject({ status: 201, json: { scope: "agent", name: "Cleo" } });
    expect((await api(created.json.key, "GET", "/v1/admin/conversations")).status).toBe(200);
    expect((await api(created.json.key, "GET", "/v1/admin/keys")).json).toEqual({ detail: AGENT_DETAIL });
  });
});

describe("read state per key", () => {
  it("counts each key's unread visitor messages, marks them read with 204, lists ?unread=true, and never moves back", async () => {
    const { api, alice, bob } = server;
    await server.chat(alice, "read-a", "First question");
    await server.chat(alice, "read-a", "Second question");
    await server.chat(alice, "read-b", "Other question");
    const [a, b] = [conversationOf("read-a"), conversationOf("read-b")];
    const unreadOf = async (key: string, conversationId: string) => (await api(key, "GET", `/v1/admin/conversations/${conversationId}`)).json.unread_count as number;
    const unreadList = async (key: string) => ((await api(key, "GET", "/v1/admin/conversations?unread=true")).json.data as { session_id: string }[]).map((each) => each.session_id);
    expect(await unreadOf(ana, a)).toBe(2);
    expect(await unreadList(ana)).toEqual(expect.arrayContaining(["read-a", "read-b"]));
    const messages = (await api(ana, "GET", `/v1/admin/conversations/${a}`)).json.messages as { id: string; author: string }[];
    // Up to the first visitor message: the second stays unread.
    const marked = await api(ana, "POST", `/v1/admin/conversations/${a}/read`, { up_to: messages[0]!.id });
    expect(marked.status).toBe(204);
    expect(marked.text).toBe("");
    expect(await unreadOf(ana, a)).toBe(1);
    await api(ana, "POST", `/v1/admin/conversations/${a}/read`, { up_to: messages.at(-1)!.id });
    expect(await unreadOf(ana, a)).toBe(0);
    await api(ana, "POST", `/v1/admin/conversations/${a}/read`, { up_to: messages[0]!.id });
    expect(await unreadOf(ana, a)).toBe(0);
    expect(await unreadList(ana)).not.toContain("read-a");
    // Ben reads for himself; the owner's key too.
    expect(await unreadOf(ben, a)).toBe(2);
    expect(await unreadList(ben)).toEqual(expect.arrayContaining(["read-a", "read-b"]));
    expect(await unreadOf(alice.adminKey, a)).toBe(2);
    const list = (await api(ana, "GET", "/v1/admin/conversations")).json.data as { id: string; unread_count: number }[];
    expect(list.find((each) => each.id === b)!.unread_count).toBe(1);
    // A visitor writing again makes it unread again.
    await server.chat(alice, "read-a", "Third question");
    expect(await unreadOf(ana, a)).toBe(1);
    expect(await unreadList(ana)).toContain("read-a");
    // Bad input: a message of another conversation, no up_to, a bad filter, another user's conversation.
    const otherMessage = ((await api(ana, "GET", `/v1/admin/conversations/${b}`)).json.messages as { id: string }[])[0]!.id;
    expect(await api(ana, "POST", `/v1/admin/conversations/${a}/read`, { up_to: otherMessage })).toMatchObject({
      status: 422,
      json: { detail: "up_to: must be the id of a message of this conversation" },
    });
    expect(await api(ana, "POST", `/v1/admin/conversations/${a}/read`, { up_to: "x' OR 1=1 --" })).toMatchObject({ status: 422 });
    expect(await api(ana, "POST", `/v1/admin/conversations/${a}/read`, {})).toMatchObject({ status: 422, json: { detail: "up_to: is required" } });
    expect(await api(ana, "GET", "/v1/admin/conversations?unread=yes")).toMatchObject({ status: 422, json: { detail: "unread: must be true or false" } });
    expect(await api(bob.adminKey, "POST", `/v1/admin/conversations/${a}/read`, { up_to: messages[0]!.id })).toMatchObject({ status: 404, json: { detail: "Conversation not found." } });
    expect(await unreadOf(ana, a)).toBe(1);
  });
});

describe("why a conversation needs attention", () => {
  it("says fallback after a blank model reply, provider_failed after a failure, and nothing once an agent answers", async () => {
    const { api, alice, context } = server;
    context.openai.chat.enqueue(replyWith("   "));
    await server.chat(alice, "attention", "Can you help?");
    const id = conversationOf("attention");
    expect((await api(ana, "GET", `/v1/admin/conversations/${id}`)).json).toMatchObject({ needs_attention: true, attention_reason: "fallback" });
    context.openai.chat.enqueue(failWith(500), failWith(500), failWith(500));
    const failed = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Hello?", session_id: "attention" });
    expect(failed.status).toBe(500);
    const listed = (await api(ana, "GET", "/v1/admin/conversations?status=attention")).json.data as { id: string; attention_reason: string }[];
    expect(listed.find((each) => each.id === id)!.attention_reason).toBe("provider_failed");
    await api(ana, "POST", `/v1/admin/conversations/${id}/messages`, { content: "Sorry about that." });
    expect((await api(ana, "GET", `/v1/admin/conversations/${id}`)).json).toMatchObject({ needs_attention: false, attention_reason: null });
  });
});
