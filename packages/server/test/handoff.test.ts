import { failWith, replyWith } from "@parley/providers/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, type OperatorServer } from "./admin-test-support.js";
import { startReceiver } from "./webhook-test-support.js";

let server: OperatorServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  server = await startOperatorServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

interface Delivered {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

describe("the human handoff, end to end over HTTP", () => {
  it("fallback → needs attention → an agent takes over and replies → the visitor's integration gets it by webhook and by polling → handed back → the model answers with the agent's turn in its history", async () => {
    const { api, alice, context, runtime } = server;
    // The visitor's integration subscribes over the API; the server delivers on its own from now on.
    const hook = await api(alice.adminKey, "POST", "/v1/admin/webhooks", { url: receiver.url, chatbot_id: alice.botId });
    expect(hook.status).toBe(201);
    const verifier = new Webhook(hook.json.secret as string);
    runtime.dispatcher.start();
    const delivered = () => receiver.requests.map((request) => verifier.verify(request.body, request.headers) as Delivered);
    const ofType = (type: string) => delivered().filter((event) => event.type === type);

    // 1. The visitor asks; the model's blank reply gives the fallback, and the inbox flags it.
    context.openai.chat.enqueue(replyWith("   "));
    const first = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "My parcel never arrived, order 4411.", session_id: "visitor-42" });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ response: "Sorry, I cannot answer that." });
    const attention = await api(alice.adminKey, "GET", "/v1/admin/conversations?status=attention");
    expect(attention.json.data).toHaveLength(1);
    const conversation = attention.json.data[0];
    expect(conversation).toMatchObject({ session_id: "visitor-42", needs_attention: true, human_takeover: false, message_count: 2 });
    expect(conversation.last_message).toMatchObject({ author: "model", content: "Sorry, I cannot answer that." });
    const path = `/v1/admin/conversations/${conversation.id as string}`;

    // 2. An agent takes over and replies.
    const takeover = await api(alice.adminKey, "POST", `${path}/takeover`);
    expect(takeover.json).toMatchObject({ human_takeover: true, needs_attention: true });
    const reply = await api(alice.adminKey, "POST", `${path}/messages`, { content: "I am Dana from support: your parcel is with the courier, it arrives tomorrow." });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ author: "agent" });
    const afterReply = (await api(alice.adminKey, "GET", path)).json;
    expect(afterReply).toMatchObject({ needs_attention: false, human_takeover: true, message_count: 3 });
    expect((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=attention")).json.data).toEqual([]);
    expect((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=human")).json.data.map((row: { id: string }) => row.id)).toEqual([conversation.id]);

    // 3. The integration receives the agent's reply as a signed message.sent webhook...
    await expect.poll(() => ofType("message.sent").filter((event) => event.data.author === "agent").length, { timeout: 10_000, interval: 20 }).toBe(1);
    const sent = ofType("message.sent").find((event) => event.data.author === "agent")!;
    expect(sent.data).toEqual({
      message_id: reply.json.id,
      conversation_id: conversation.id,
      chatbot_id: alice.botId,
      session_id: "visitor-42",
      role: "assistant",
      author: "agent",
      agent_name: "operator",
      content: "I am Dana from support: your parcel is with the courier, it arrives tomorrow.",
      created_at: reply.json.created_at,
    });
    await expect.poll(() => ofType("conversation.takeover_started").length, { timeout: 10_000, interval: 20 }).toBe(1);
    expect(ofType("conversation.takeover_started")[0]!.data).toEqual({ conversation_id: conversation.id, chatbot_id: alice.botId, session_id: "visitor-42", at: expect.any(String) });
    // ...and one that cannot take webhooks polls the session route with its chat key.
    const polled = await api(alice.chatKey, "GET", `/v1/chatbots/${alice.botId}/sessions/visitor-42/messages`);
    expect(polled.json.data.map((message: { author: string }) => message.author)).toEqual(["user", "model", "agent"]);
    expect(polled.json.data[2]).toEqual(reply.json);

    // 4. While the agent has it, the visitor's next message is stored and not answered by the model.
    const requestsBefore = context.openai.chat.requestCount;
    const waiting = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Thank you! Which courier?", session_id: "visitor-42" });
    expect(waiting.status).toBe(202);
    expect(context.openai.chat.requestCount).toBe(requestsBefore);
    await api(alice.adminKey, "POST", `${path}/messages`, { content: "DHL, tracking number 123." });

    // 5. The agent hands back; the model answers again, with the agent's turns in its history.
    const handback = await api(alice.adminKey, "DELETE", `${path}/takeover`);
    expect(handback.json).toMatchObject({ human_takeover: false, needs_attention: false });
    const again = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Can I change the delivery address?", session_id: "visitor-42" });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ response: "This is the fake model's reply." });
    const sentToModel = context.openai.chat.requests.at(-1)!.body as { messages: { role: string; content: string }[] };
    const history = sentToModel.messages.filter((message) => message.role !== "system");
    expect(history).toEqual([
      { role: "user", content: "My parcel never arrived, order 4411." },
      // Consecutive turns of one role reach the model as one (providers want them alternating).
      { role: "assistant", content: "Sorry, I cannot answer that.\n\nI am Dana from support: your parcel is with the courier, it arrives tomorrow." },
      { role: "user", content: "Thank you! Which courier?" },
      { role: "assistant", content: "DHL, tracking number 123." },
      { role: "user", content: "Can I change the delivery address?" },
    ]);
    expect((await api(alice.adminKey, "GET", path)).json).toMatchObject({ human_takeover: false, needs_attention: false, message_count: 7, last_message: { author: "model" } });

    // Every event of the story arrived, signed, once each (receivers de-duplicate on webhook-id; none was needed).
    await expect.poll(() => ofType("conversation.takeover_ended").length, { timeout: 10_000, interval: 20 }).toBe(1);
    await expect.poll(() => ofType("message.sent").length, { timeout: 10_000, interval: 20 }).toBe(4);
    expect(ofType("message.sent").map((event) => event.data.author).sort()).toEqual(["agent", "agent", "model", "model"]);
    expect(ofType("message.received").map((event) => event.data.human_takeover)).toEqual([false, true, false]);
    expect(ofType("conversation.started")).toHaveLength(1);
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size).toBe(receiver.requests.length);
  });

  it("flags a conversation whose latest message the provider failed on, and clears the flag once the model answers", async () => {
    const { api, alice, context } = server;
    context.openai.chat.respondWith(failWith(500, { message: "upstream down" }));
    const failed = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Is anyone there?", session_id: "visitor-failed" });
    expect(failed.status).toBe(500);
    expect(failed.json).toEqual({ detail: "The language model provider failed to answer." });
    const flagged = (await api(alice.adminKey, "GET", "/v1/admin/conversations?status=attention")).json.data;
    expect(flagged.map((row: { session_id: string }) => row.session_id)).toEqual(["visitor-failed"]);
    expect(flagged[0]).toMatchObject({ needs_attention: true, last_message: { author: "user", content: "Is anyone there?" } });

    context.openai.chat.respondWith(replyWith("Yes, how can I help?"));
    const answered = await api(alice.chatKey, "POST", `/v1/chatbots/${alice.botId}/chat`, { message: "Hello again", session_id: "visitor-failed" });
    expect(answered.json).toEqual({ response: "Yes, how can I help?" });
    expect((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=attention")).json.data).toEqual([]);
  });
});
