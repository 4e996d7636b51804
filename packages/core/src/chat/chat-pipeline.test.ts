import { describe, expect, it } from "vitest";
import { providerFailed } from "../errors.js";
import { rejection, setup } from "../../test/harness.js";

describe("chat: the seven steps", () => {
  it("answers with the model's reply and stores both messages", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    model.enqueue("Hello from Acme.");
    const result = await parley.chat(caller, chatbot.id, { message: "  hi there  ", session_id: "s1" });
    expect(result).toMatchObject({ response: "Hello from Acme.", humanTakeover: false });
    const conversation = await storage.findConversation(chatbot.id, "s1");
    const messages = await storage.listMessages(conversation!.id);
    expect(messages.map((message) => [message.role, message.author, message.content])).toEqual([
      ["user", "end_user", "hi there"],
      ["assistant", "model", "Hello from Acme."],
    ]);
    expect(model.requests[0]).toMatchObject({ model: "gpt-test", maxTokens: 1024 });
  });

  it("builds one system text: system prompt, identity rules naming the chatbot, then the retrieved context", async () => {
    const { parley, caller, chatbot, model } = await setup();
    await parley.admin.ingestDocument(chatbot.id, { source: "refunds.md", title: "Refund policy", text: "Refunds are issued within 14 days of purchase for unused items." });
    await parley.admin.ingestDocument(chatbot.id, { source: "shipping.md", title: "Shipping", text: "We ship to Europe and North America with tracked parcels." });
    await parley.chat(caller, chatbot.id, { message: "How many days do I have to get a refund?" });
    const system = model.requests[0]!.system;
    const promptAt = system.indexOf("You help customers of Acme.");
    const rulesAt = system.indexOf("You are Acme Helper.");
    const contextAt = system.indexOf("Context from the knowledge base, between <context> and </context>");
    expect(promptAt).toBe(0);
    expect(rulesAt).toBeGreaterThan(promptAt);
    expect(contextAt).toBeGreaterThan(rulesAt);
    expect(system.slice(contextAt)).toMatch(/\n<context>\n\[1\] Refund policy\nRefunds are issued within 14 days[^]*\n<\/context>$/);
  });

  it("says in the prompt that the knowledge base has nothing when no document matches", async () => {
    const { parley, caller, chatbot, model } = await setup();
    await parley.chat(caller, chatbot.id, { message: "hello" });
    expect(model.requests[0]!.system).toContain("the knowledge base holds nothing that matches");
  });

  it("sends exactly the 10 most recent stored messages before the current one, oldest first", async () => {
    const { parley, caller, chatbot, model } = await setup();
    for (let turn = 1; turn <= 12; turn += 1) {
      model.enqueue(`answer ${turn}`);
      await parley.chat(caller, chatbot.id, { message: `question ${turn}`, session_id: "long" });
    }
    model.enqueue("answer 13");
    await parley.chat(caller, chatbot.id, { message: "question 13", session_id: "long" });
    const sent = model.requests.at(-1)!.messages;
    expect(sent).toHaveLength(11);
    expect(sent.map((turn) => `${turn.role}:${turn.content}`)).toEqual([
      "user:question 8", "assistant:answer 8",
      "user:question 9", "assistant:answer 9",
      "user:question 10", "assistant:answer 10",
      "user:question 11", "assistant:answer 11",
      "user:question 12", "assistant:answer 12",
      "user:question 13",
    ]);
  });

  it("keeps sessions apart, and defaults the session to api-<userId>", async () => {
    const { parley, caller, chatbot, model, storage, user } = await setup();
    await parley.chat(caller, chatbot.id, { message: "first without session" });
    await parley.chat(caller, chatbot.id, { message: "in session a", session_id: "a" });
    await parley.chat(caller, chatbot.id, { message: "second without session" });
    expect(model.requests[2]!.messages.map((turn) => turn.content)).toEqual([
      "first without session",
      "echo: first without session",
      "second without session",
    ]);
    expect(model.requests[1]!.messages).toHaveLength(1);
    expect(await storage.findConversation(chatbot.id, `api-${user.id}`)).not.toBeNull();
  });

  it("shares the default session across all of one user's keys (why integrations must send a session_id per end user)", async () => {
    const { parley, caller, chatbot, model, user } = await setup();
    const other = await parley.authenticate((await parley.admin.createApiKey({ userId: user.id })).key);
    await parley.chat(caller, chatbot.id, { message: "sent with the first key" });
    await parley.chat(other, chatbot.id, { message: "sent with the second key" });
    expect(model.requests[1]!.messages.map((turn) => turn.content)).toEqual(["sent with the first key", "echo: sent with the first key", "sent with the second key"]);
  });

  it("replaces a blank reply with the fallback message, and stores the fallback", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    model.enqueue(" \n ");
    const result = await parley.chat(caller, chatbot.id, { message: "hi", session_id: "s" });
    expect(result.response).toBe("Sorry, I have no answer.");
    const conversation = await storage.findConversation(chatbot.id, "s");
    expect((await storage.listMessages(conversation!.id)).at(-1)!.content).toBe("Sorry, I have no answer.");
  });

  it("reports a provider failure as provider_failed, with no upstream text, and keeps the user message", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    model.enqueue(new Error("upstream 503: secret-token-abc"));
    const error = await rejection(parley.chat(caller, chatbot.id, { message: "hi", session_id: "s" }));
    expect(error).toMatchObject({ code: "provider_failed", detail: "The language model provider failed to answer." });
    expect(JSON.stringify(error)).not.toContain("secret-token-abc");
    const conversation = await storage.findConversation(chatbot.id, "s");
    expect((await storage.listMessages(conversation!.id)).map((message) => message.role)).toEqual(["user"]);
  });

  it("passes a provider's own provider_failed error through unchanged", async () => {
    const { parley, caller, chatbot, model } = await setup();
    const upstream = providerFailed({ upstreamStatus: 429, retryable: true });
    model.enqueue(upstream);
    await expect(parley.chat(caller, chatbot.id, { message: "hi" })).rejects.toBe(upstream);
  });

  it("fails with provider_failed when the chatbot's provider has no configured model", async () => {
    const { parley, caller, user } = await setup();
    const bot = await parley.admin.createChatbot({ userId: user.id, name: "Local", provider: "ollama", model: "llama3" });
    const error = await rejection(parley.chat(caller, bot.id, { message: "hi" }));
    expect(error.code).toBe("provider_failed");
  });
});

describe("chat: events", () => {
  it("fires conversation.started once per conversation, message.received for every message and message.sent for every reply, in the outbox and on the bus", async () => {
    const { parley, caller, chatbot, outbox, published, user } = await setup();
    await parley.chat(caller, chatbot.id, { message: "one", session_id: "s" });
    await parley.chat(caller, chatbot.id, { message: "two", session_id: "s" });
    const events = await outbox();
    expect(events.map((event) => event.type)).toEqual(["conversation.started", "message.received", "message.sent", "message.received", "message.sent"]);
    expect(events[2]!.data).toMatchObject({ role: "assistant", author: "model", content: "echo: one", session_id: "s" });
    expect(published.map((event) => event.type)).toEqual(events.map((event) => event.type));
    const [started, received] = events;
    expect(started!.userId).toBe(user.id);
    expect(Object.keys(started!.data).sort()).toEqual(["chatbot_id", "conversation_id", "created_at", "session_id"]);
    expect(started!.data).toMatchObject({ chatbot_id: chatbot.id, session_id: "s" });
    expect(received!.data).toMatchObject({
      chatbot_id: chatbot.id,
      session_id: "s",
      role: "user",
      content: "one",
      human_takeover: false,
      conversation_id: (started!.data as { conversation_id: string }).conversation_id,
    });
    expect(Object.keys(received!.data).sort()).toEqual(
      ["chatbot_id", "content", "conversation_id", "created_at", "human_takeover", "message_id", "role", "session_id"],
    );
    expect((received!.data as { created_at: string }).created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  });

  it("does not turn a throwing bus subscriber into a failed chat", async () => {
    const { parley, caller, chatbot } = await setup();
    parley.events.on("message.received", () => {
      throw new Error("subscriber bug");
    });
    await expect(parley.chat(caller, chatbot.id, { message: "hi" })).resolves.toMatchObject({ humanTakeover: false });
  });
});

describe("chat: human takeover", () => {
  it("stores the message, fires its events with human_takeover, counts it, and does not call the model", async () => {
    const { parley, caller, chatbot, model, outbox, storage, user } = await setup();
    const started = await parley.admin.startTakeover(chatbot.id, "s");
    expect(started.created).toBe(true);
    const result = await parley.chat(caller, chatbot.id, { message: "is a human there?", session_id: "s" });
    expect(result).toMatchObject({ response: "", humanTakeover: true });
    expect(model.requests).toHaveLength(0);
    const events = await outbox();
    expect(events.map((event) => event.type)).toEqual(["conversation.started", "conversation.takeover_started", "message.received"]);
    expect(events[2]!.data).toMatchObject({ human_takeover: true, content: "is a human there?" });
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(1);
  });

  it("puts a human agent's reply into the history the model sees after the takeover ends", async () => {
    const { parley, caller, chatbot, model } = await setup();
    await parley.admin.startTakeover(chatbot.id, "s");
    await parley.chat(caller, chatbot.id, { message: "I need a person", session_id: "s" });
    await parley.admin.replyAsAgent(chatbot.id, "s", "Hi, this is Dana from support.");
    const ended = await parley.admin.endTakeover(chatbot.id, "s");
    expect(ended).toMatchObject({ created: false, conversation: { humanTakeover: false } });
    await parley.chat(caller, chatbot.id, { message: "thanks, bot again", session_id: "s" });
    expect(model.requests[0]!.messages.map((turn) => `${turn.role}:${turn.content}`)).toEqual([
      "user:I need a person",
      "assistant:Hi, this is Dana from support.",
      "user:thanks, bot again",
    ]);
  });
});
