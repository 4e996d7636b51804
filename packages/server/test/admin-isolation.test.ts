import { replyWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, type OperatorServer, type Tenant } from "./admin-test-support.js";
import { startReceiver } from "./webhook-test-support.js";

let server: OperatorServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** Alice's resources of every kind, which Bob must neither see nor touch. */
let owned: { documentId: string; ingestionId: string; conversationId: string; keyId: string; webhookId: string; deliveryId: string };

beforeAll(async () => {
  server = await startOperatorServer();
  receiver = await startReceiver();
  const { api, alice, bob, chat, runtime } = server;
  const ingestion = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/documents`, { title: "Alice's secret recipe", text: "Two spoons of cardamom." });
  await runtime.ingestions.runOnce();
  const documentId = (await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}/documents`)).json.data[0].id as string;
  const keyId = (await api(alice.adminKey, "POST", "/v1/admin/keys", { name: "alice-extra" })).json.id as string;
  const webhookId = (await api(alice.adminKey, "POST", "/v1/admin/webhooks", { url: receiver.url })).json.id as string;
  await chat(alice, "alice-visitor", "Hello from Alice's visitor");
  await chat(bob, "bob-visitor", "Hello from Bob's visitor");
  // Each user also has a conversation in every other state, so each status filter has rows of
  // both users to keep apart: one the model answered blank (needs attention), one taken over.
  for (const tenant of [alice, bob] as Tenant[]) {
    const name = tenant === alice ? "alice" : "bob";
    server.context.openai.chat.enqueue(replyWith("   "));
    await chat(tenant, `${name}-waiting`, "Is anyone there?");
    await chat(tenant, `${name}-taken`, "I would like to talk to a person.");
    const taken = (await api(tenant.adminKey, "GET", "/v1/admin/conversations")).json.data.find((row: { session_id: string }) => row.session_id === `${name}-taken`);
    expect((await api(tenant.adminKey, "POST", `/v1/admin/conversations/${taken.id as string}/takeover`)).status).toBe(200);
  }
  await runtime.dispatcher.runOnce();
  const conversationId = (await api(alice.adminKey, "GET", "/v1/admin/conversations")).json.data[0].id as string;
  const deliveryId = (await api(alice.adminKey, "GET", "/v1/admin/webhook-deliveries")).json.data[0].id as string;
  owned = { documentId, ingestionId: ingestion.json.id as string, conversationId, keyId, webhookId, deliveryId };
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

describe("isolation between users on the operator API", () => {
  it("answers 404 to another user's admin key on every route that names Alice's resource, and changes nothing", async () => {
    const { api, alice, bob, runtime } = server;
    const { documentId, ingestionId, conversationId, keyId, webhookId, deliveryId } = owned;
    const snapshot = () =>
      runtime.database
        .prepare(
          `SELECT (SELECT json_group_array(json_array(name, is_active, deleted_at, fallback_message)) FROM chatbots) AS bots,
                  (SELECT count(*) FROM search_documents) AS documents, (SELECT count(*) FROM ingestions) AS ingestions,
                  (SELECT json_group_array(json_array(human_takeover, message_count)) FROM conversations) AS conversations,
                  (SELECT count(*) FROM messages) AS messages, (SELECT count(*) FROM api_keys WHERE revoked_at IS NOT NULL) AS revoked,
                  (SELECT count(*) FROM webhook_subscriptions) AS webhooks, (SELECT json_group_array(status) FROM webhook_deliveries) AS deliveries`,
        )
        .get();
    const before = snapshot();
    const refusals: [string, string, unknown, string][] = [
      ["GET", `/v1/admin/chatbots/${alice.botId}`, undefined, "Chatbot not found."],
      ["PATCH", `/v1/admin/chatbots/${alice.botId}`, { name: "Taken" }, "Chatbot not found."],
      ["DELETE", `/v1/admin/chatbots/${alice.botId}`, undefined, "Chatbot not found."],
      ["GET", `/v1/admin/chatbots/${alice.botId}/documents`, undefined, "Chatbot not found."],
      ["POST", `/v1/admin/chatbots/${alice.botId}/documents`, { title: "Injected", text: "Bob was here." }, "Chatbot not found."],
      ["DELETE", `/v1/admin/chatbots/${alice.botId}/documents/${documentId}`, undefined, "Chatbot not found."],
      // Bob's own chatbot with Alice's document id: still no document.
      ["DELETE", `/v1/admin/chatbots/${bob.botId}/documents/${documentId}`, undefined, "Document not found."],
      ["POST", `/v1/admin/chatbots/${alice.botId}/search`, { query: "cardamom" }, "Chatbot not found."],
      ["GET", `/v1/admin/ingestions/${ingestionId}`, undefined, "Ingestion not found."],
      ["GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`, undefined, "Chatbot not found."],
      ["GET", `/v1/admin/conversations/${conversationId}`, undefined, "Conversation not found."],
      ["POST", `/v1/admin/conversations/${conversationId}/takeover`, undefined, "Conversation not found."],
      ["DELETE", `/v1/admin/conversations/${conversationId}/takeover`, undefined, "Conversation not found."],
      ["POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "I am not Alice's agent." }, "Conversation not found."],
      ["DELETE", `/v1/admin/keys/${keyId}`, undefined, "API key not found."],
      ["POST", "/v1/admin/webhooks", { url: receiver.url, chatbot_id: alice.botId }, "Chatbot not found."],
      ["DELETE", `/v1/admin/webhooks/${webhookId}`, undefined, "Webhook not found."],
      ["POST", `/v1/admin/webhook-deliveries/${deliveryId}/retry`, undefined, "Delivery not found."],
    ];
    for (const [method, path, body, detail] of refusals) {
      const answer = await api(bob.adminKey, method, path, body);
      expect({ method, path, status: answer.status, body: answer.json }).toEqual({ method, path, status: 404, body: { detail } });
    }
    // The session route for chat keys: Bob's keys reach neither Alice's chatbot nor her sessions.
    for (const key of [bob.chatKey, bob.adminKey]) {
      const answer = await api(key, "GET", `/v1/chatbots/${alice.botId}/sessions/alice-visitor/messages`);
      expect(answer.status).toBe(404);
      expect(answer.json).toEqual({ detail: "Chatbot not found." });
    }
    expect(snapshot()).toEqual(before);
  });

  it("never lists another user's rows, and counts only the caller's usage", async () => {
    const { api, bob, alice } = server;
    const list = async (path: string) => (await api(bob.adminKey, "GET", path)).json as { data: Record<string, unknown>[]; next_cursor: string | null };
    expect((await list("/v1/admin/chatbots")).data.map((bot) => bot.id)).toEqual([bob.botId]);
    expect((await list(`/v1/admin/chatbots/${bob.botId}/documents`)).data).toEqual([]);
    const sessions = async (key: string, query: string) =>
      ((await api(key, "GET", `/v1/admin/conversations${query}`)).json.data as { session_id: string }[]).map((row) => row.session_id).sort();
    expect(await sessions(bob.adminKey, "")).toEqual(["bob-taken", "bob-visitor", "bob-waiting"]);
    // Each filter returns exactly the caller's conversations in that state, while the other user
    // has one in the same state that must not show.
    const byStatus = { bot: ["visitor", "waiting"], human: ["taken"], attention: ["waiting"] };
    for (const [status, names] of Object.entries(byStatus)) {
      expect({ status, bob: await sessions(bob.adminKey, `?status=${status}`) }).toEqual({ status, bob: names.map((name) => `bob-${name}`) });
      expect({ status, alice: await sessions(alice.adminKey, `?status=${status}`) }).toEqual({ status, alice: names.map((name) => `alice-${name}`) });
    }
    expect((await list("/v1/admin/keys")).data.map((key) => key.name).sort()).toEqual(["operator", "widget"]);
    expect((await list("/v1/admin/webhooks")).data).toEqual([]);
    expect((await list("/v1/admin/webhook-deliveries")).data).toEqual([]);
    expect((await list("/v1/admin/webhook-deliveries?status=delivered")).data).toEqual([]);
    const search = await api(bob.adminKey, "POST", `/v1/admin/chatbots/${bob.botId}/search`, { query: "cardamom" });
    expect(search.json).toEqual({ data: [] });

    const usage = (await api(bob.adminKey, "GET", "/v1/admin/usage")).json;
    expect(usage).toMatchObject({ used: 3, remaining: 997, by_chatbot: [{ chatbot_id: bob.botId, messages: 3 }] });
    expect(usage.by_day.map((day: { messages: number }) => day.messages)).toEqual([3]);
    // And Alice still sees all of hers.
    expect((await api(alice.adminKey, "GET", "/v1/admin/webhook-deliveries")).json.data.length).toBeGreaterThan(0);
    expect((await api(alice.adminKey, "GET", "/v1/admin/usage")).json).toMatchObject({ used: 3, by_chatbot: [{ chatbot_id: alice.botId, messages: 3 }] });
  });
});
