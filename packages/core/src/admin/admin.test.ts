import { describe, expect, it } from "vitest";
import { createLocalEmbedder } from "../retrieval/local-embedder.js";
import { rejection, setup } from "../../test/harness.js";

describe("accounts", () => {
  it("gives a new user the free plan of 1,000 messages, created on first use", async () => {
    const { parley, storage } = await setup();
    const user = await parley.admin.createUser({ email: "new@example.com" });
    expect(user.planName).toBe("free");
    expect(await storage.getPlan("free")).toEqual({ name: "free", monthlyMessages: 1000 });
  });

  it("puts a user on a named plan, and refuses an unknown plan, a bad email and a duplicate email", async () => {
    const { parley } = await setup();
    await parley.admin.setPlan("pro", 50_000);
    expect((await parley.admin.createUser({ email: "pro@example.com", plan: "pro" })).planName).toBe("pro");
    expect(await rejection(parley.admin.createUser({ email: "x@example.com", plan: "gold" }))).toMatchObject({ code: "not_found", detail: "Plan gold not found." });
    expect((await rejection(parley.admin.createUser({ email: "not-an-email" }))).code).toBe("invalid_request");
    expect((await rejection(parley.admin.createUser({ email: "OWNER@example.com" }))).code).toBe("conflict");
    expect((await rejection(parley.admin.setPlan("pro", -1))).code).toBe("invalid_request");
  });

  it("refuses keys and chatbots for a user that does not exist, and an unknown provider", async () => {
    const { parley, user } = await setup();
    const missing = "00000000-0000-4000-8000-0000000fffff";
    expect((await rejection(parley.admin.createApiKey({ userId: missing }))).code).toBe("not_found");
    expect((await rejection(parley.admin.createChatbot({ userId: missing, name: "x", provider: "openai", model: "m" }))).code).toBe("not_found");
    expect(await rejection(parley.admin.createChatbot({ userId: user.id, name: "x", provider: "gemini", model: "m" }))).toMatchObject({
      code: "invalid_request",
      detail: "provider: must be one of openai, anthropic, ollama",
    });
    expect((await rejection(parley.admin.revokeApiKey(missing))).code).toBe("not_found");
  });
});

describe("ingestion", () => {
  it("chunks, embeds and indexes a document, and re-ingesting the same source replaces it", async () => {
    const { parley, chatbot, searchIndex } = await setup();
    const long = Array.from({ length: 30 }, (_, index) => `Paragraph ${index} explains the warranty terms in words.`).join("\n\n");
    const first = await parley.admin.ingestDocument(chatbot.id, { source: "docs/warranty.md", text: long });
    expect(first.chunks).toBeGreaterThan(1);
    expect((await searchIndex.keywordSearch(chatbot.id, "warranty", 50)).every((found) => found.title === "warranty.md")).toBe(true);
    await parley.admin.ingestDocument(chatbot.id, { source: "docs/warranty.md", text: "The warranty lasts two years." });
    const hits = await searchIndex.keywordSearch(chatbot.id, "warranty", 50);
    expect(hits.map((found) => found.text)).toEqual(["The warranty lasts two years."]);
    expect(await parley.admin.removeDocument(chatbot.id, "docs/warranty.md")).toBe(true);
    expect(await searchIndex.keywordSearch(chatbot.id, "warranty", 50)).toEqual([]);
  });

  it("refuses a document for a chatbot indexed with another embedder, and reindex moves it to the new one", async () => {
    const { parley, chatbot, storage, searchIndex } = await setup();
    await parley.admin.ingestDocument(chatbot.id, { source: "a.md", text: "Returns are free within 30 days." });
    const { createParley } = await import("../parley.js");
    const other = createParley({ storage, searchIndex, embedder: createLocalEmbedder({ dimensions: 256 }), chatModels: {} });
    const error = await rejection(other.admin.ingestDocument(chatbot.id, { source: "b.md", text: "More text." }));
    expect(error.code).toBe("embedder_mismatch");
    expect(error.detail).toMatch(/Reindex the chatbot\.$/);
    expect(await other.admin.reindexChatbot(chatbot.id)).toEqual({ chunks: 1 });
    expect((await searchIndex.embeddingSpace(chatbot.id))?.dimensions).toBe(256);
    await expect(other.admin.ingestDocument(chatbot.id, { source: "b.md", text: "More text." })).resolves.toEqual({ chunks: 1 });
  });

  it("refuses to ingest into a deleted chatbot", async () => {
    const { parley, chatbot } = await setup();
    await parley.admin.deleteChatbot(chatbot.id);
    expect((await rejection(parley.admin.ingestDocument(chatbot.id, { source: "a", text: "x" }))).detail).toBe("Chatbot not found.");
  });
});

describe("takeover and conversations", () => {
  it("starting a takeover on a new session creates the conversation and fires conversation.started and takeover_started once", async () => {
    const { parley, chatbot, outbox } = await setup();
    const first = await parley.admin.startTakeover(chatbot.id, "walk-in");
    const again = await parley.admin.startTakeover(chatbot.id, "walk-in");
    expect([first.created, again.created]).toEqual([true, false]);
    expect(first.conversation.humanTakeover).toBe(true);
    expect((await outbox()).map((event) => event.type)).toEqual(["conversation.started", "conversation.takeover_started"]);
  });

  it("shows a conversation with every message, and refuses an unknown one", async () => {
    const { parley, caller, chatbot } = await setup();
    await parley.chat(caller, chatbot.id, { message: "hello", session_id: "s" });
    const shown = await parley.admin.showConversation(chatbot.id, "s");
    expect(shown.messages.map((message) => message.content)).toEqual(["hello", "echo: hello"]);
    expect(await rejection(parley.admin.showConversation(chatbot.id, "nope"))).toMatchObject({ code: "not_found", detail: "Conversation not found." });
    expect((await rejection(parley.admin.replyAsAgent(chatbot.id, "nope", "hi"))).code).toBe("not_found");
  });
});

describe("webhook subscriptions", () => {
  it("creates a subscription with a whsec_ secret, narrowed to a chatbot and event types", async () => {
    const { parley, user, chatbot } = await setup();
    const subscription = await parley.admin.createWebhookSubscription({
      userId: user.id,
      url: "https://hooks.example.com/parley",
      chatbotId: chatbot.id,
      eventTypes: ["message.received"],
    });
    expect(subscription.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(subscription.secret.slice(6), "base64")).toHaveLength(32);
    // The secret is returned once and never stored: the listed subscription has none.
    const { secret: _secret, ...stored } = subscription;
    expect(await parley.admin.listWebhookSubscriptions(user.id)).toEqual([stored]);
    expect(await parley.admin.removeWebhookSubscription(subscription.id)).toBe(true);
    expect(await parley.admin.listWebhookSubscriptions(user.id)).toEqual([]);
  });

  it("refuses a bad URL, an unknown event type and another user's chatbot", async () => {
    const { parley, user, chatbot } = await setup();
    const other = await parley.admin.createUser({ email: "other@example.com" });
    expect((await rejection(parley.admin.createWebhookSubscription({ userId: user.id, url: "ftp://x" }))).detail).toBe(
      "url: must be an absolute http or https URL",
    );
    expect((await rejection(parley.admin.createWebhookSubscription({ userId: user.id, url: "https://x.test", eventTypes: ["message.deleted"] }))).code).toBe(
      "invalid_request",
    );
    expect((await rejection(parley.admin.createWebhookSubscription({ userId: other.id, url: "https://x.test", chatbotId: chatbot.id }))).code).toBe(
      "not_found",
    );
  });
});
