import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate, openDatabase } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { closeAfterEach, START, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const SECOND = 1_000_000;

/**
 * A database as the previous release left it (migrations 1–4): a user with a key, a chatbot
 * with indexed chunks, conversations with messages (one whose last reply is the fallback) and
 * webhook deliveries.
 */
function previousReleaseDatabase(path: string) {
  const old = new BetterSqlite3(path);
  old.pragma("journal_mode = WAL");
  migrate(old, MIGRATIONS.slice(0, 4));
  old.exec(`
    INSERT INTO plans (name, monthly_messages) VALUES ('free', 1000);
    INSERT INTO users (id, email, email_key, plan_name, created_at) VALUES ('user-1', 'a@example.com', 'a@example.com', 'free', ${START});
    INSERT INTO api_keys (id, user_id, name, key_hash, created_at) VALUES ('key-1', 'user-1', 'default', 'hash-1', ${START});
    INSERT INTO chatbots (id, owner_id, name, slug, provider, model, system_prompt, fallback_message, is_active, created_at)
      VALUES ('bot-1', 'user-1', 'Support', 'support', 'openai', 'gpt-test', '', 'Sorry, I cannot help.', 1, ${START});
    INSERT INTO conversations (id, chatbot_id, session_id, human_takeover, created_at) VALUES
      ('conv-answered', 'bot-1', 'answered', 0, ${START}),
      ('conv-fallback', 'bot-1', 'fallback', 0, ${START + SECOND}),
      ('conv-rescued', 'bot-1', 'rescued', 1, ${START + 2 * SECOND}),
      ('conv-empty', 'bot-1', 'empty', 0, ${START + 3 * SECOND}),
      ('conv-waiting', 'bot-1', 'waiting', 1, ${START + 4 * SECOND}),
      ('conv-failed', 'bot-1', 'failed', 0, ${START + 5 * SECOND}),
      ('conv-with-agent', 'bot-1', 'with-agent', 1, ${START + 6 * SECOND});
  `);
  const message = old.prepare("INSERT INTO messages (id, conversation_id, role, author, content, created_at) VALUES (?, ?, ?, ?, ?, ?)");
  const at = (seconds: number) => START + seconds * SECOND;
  message.run("m1", "conv-answered", "user", "end_user", "Hi", at(10));
  message.run("m2", "conv-answered", "assistant", "model", "Hello!", at(11));
  message.run("m3", "conv-fallback", "user", "end_user", "Where is my parcel?", at(20));
  message.run("m4", "conv-fallback", "assistant", "model", "Sorry, I cannot help.", at(21));
  message.run("m5", "conv-rescued", "user", "end_user", "Help", at(30));
  message.run("m6", "conv-rescued", "assistant", "model", "Sorry, I cannot help.", at(31));
  message.run("m7", "conv-rescued", "assistant", "agent", "An agent here.", at(32));
  // The visitor wrote again after the fallback, while waiting for an agent.
  message.run("m8", "conv-waiting", "user", "end_user", "Hello?", at(40));
  message.run("m9", "conv-waiting", "assistant", "model", "Sorry, I cannot help.", at(41));
  message.run("m10", "conv-waiting", "user", "end_user", "Is a person there?", at(42));
  // The provider failed on the latest message: stored, never answered, no takeover.
  message.run("m11", "conv-failed", "user", "end_user", "Hi", at(50));
  message.run("m12", "conv-failed", "assistant", "model", "Hello!", at(51));
  message.run("m13", "conv-failed", "user", "end_user", "And prices?", at(52));
  // During a takeover a visitor's message waits for the agent, not for the model: no flag.
  message.run("m14", "conv-with-agent", "user", "end_user", "Hi", at(60));
  message.run("m15", "conv-with-agent", "assistant", "model", "Hello!", at(61));
  message.run("m16", "conv-with-agent", "user", "end_user", "A person, please", at(62));
  const event = old.prepare("INSERT INTO outbox_events (id, type, user_id, chatbot_id, data, created_at, dispatched_at) VALUES (?, 'message.received', 'user-1', 'bot-1', '{}', ?, ?)");
  event.run("event-1", at(20), at(20));
  event.run("event-2", at(30), at(30));
  old.prepare("INSERT INTO webhook_subscriptions (id, user_id, url, event_types, signing_key_id, created_at) VALUES ('hook-1', 'user-1', 'https://a.example/hook', '[]', 'k', ?)").run(at(1));
  const delivery = old.prepare(
    `INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, status, attempts, next_attempt_at, created_at, delivered_at)
     VALUES (?, ?, ?, 'message.received', ?, 1, ?, ?, ?)`,
  );
  delivery.run("delivery-1", "hook-1", "event-1", "delivered", null, at(20), at(20));
  // A delivery of a subscription removed since: its user comes from the event.
  delivery.run("delivery-2", "hook-gone", "event-2", "failed", null, at(30), null);
  old.exec("INSERT INTO search_chatbots (key, chatbot_id, embedder_id, dimensions) VALUES (1, 'bot-1', 'local', 4)");
  const chunk = old.prepare("INSERT INTO search_chunks (bot, source, title, body) VALUES (1, ?, ?, ?)");
  chunk.run("shipping.md", "Shipping", "Parcels take four days.");
  chunk.run("shipping.md", "Shipping", "Returns are free.");
  chunk.run("faq", "FAQ", "Open at nine.");
  old.close();
}

describe("opening a database of the previous release (migrations 1–4)", () => {
  it("gives old keys the chat scope, fills in the conversation facts, lists documents from their chunks and keeps deliveries per user", async () => {
    const path = freshPath();
    previousReleaseDatabase(path);
    const storage = track(createSqliteStorage({ path }));

    expect(await storage.listApiKeys("user-1")).toEqual([expect.objectContaining({ id: "key-1", scope: "chat", lastUsedAt: null })]);
    expect(await storage.getChatbot("bot-1")).toMatchObject({ updatedAt: START });

    const facts = async (id: string) => {
      const conversation = (await storage.getConversation(id))!;
      return { count: conversation.messageCount, updated: conversation.updatedAt, attention: conversation.needsAttention, last: conversation.lastMessage?.id ?? null };
    };
    expect(await facts("conv-answered")).toEqual({ count: 2, updated: START + 11 * SECOND, attention: false, last: "m2" });
    expect(await facts("conv-fallback")).toEqual({ count: 2, updated: START + 21 * SECOND, attention: true, last: "m4" });
    // The fallback was followed by an agent's reply: handled.
    expect(await facts("conv-rescued")).toEqual({ count: 3, updated: START + 32 * SECOND, attention: false, last: "m7" });
    // No message: last activity is the creation.
    expect(await facts("conv-empty")).toEqual({ count: 0, updated: START + 3 * SECOND, attention: false, last: null });

    // As the live rule (docs/design.md §9): the latest reply is the fallback, or the provider failed on the latest user message.
    expect(await facts("conv-waiting")).toEqual({ count: 3, updated: START + 42 * SECOND, attention: true, last: "m10" });
    expect(await facts("conv-failed")).toEqual({ count: 3, updated: START + 52 * SECOND, attention: true, last: "m13" });
    expect(await facts("conv-with-agent")).toEqual({ count: 3, updated: START + 62 * SECOND, attention: false, last: "m16" });

    // Migration 10 says why: a fallback reply, or the provider failing on an unanswered message.
    const reasons = await Promise.all(["conv-answered", "conv-fallback", "conv-waiting", "conv-failed", "conv-with-agent"].map(async (id) => (await storage.getConversation(id))!.attentionReason));
    expect(reasons).toEqual([null, "fallback", "fallback", "provider_failed", null]);
    expect((await storage.listMessages("conv-rescued")).map((message) => message.agentName)).toEqual([null, null, null]);
    // The rebuilt key table takes the agent scope, and kept the old key whole.
    await storage.createApiKey({ id: "key-2", userId: "user-1", name: "Ana", keyHash: "hash-2", scope: "agent", createdAt: START + SECOND, revokedAt: null, lastUsedAt: null });
    expect((await storage.findApiKeyByHash("hash-1"))!.apiKey).toEqual({ id: "key-1", userId: "user-1", name: "default", keyHash: "hash-1", scope: "chat", createdAt: START, revokedAt: null, lastUsedAt: null });
    expect((await storage.getApiKey("key-2"))!.scope).toBe("agent");

    const ids = async (status?: "bot" | "human" | "attention") => (await storage.listConversations({ ownerId: "user-1", status, limit: 10 })).map((conversation) => conversation.id);
    expect(await ids()).toEqual(["conv-with-agent", "conv-failed", "conv-waiting", "conv-rescued", "conv-fallback", "conv-answered", "conv-empty"]);
    expect(await ids("attention")).toEqual(["conv-failed", "conv-waiting", "conv-fallback"]);
    expect(await ids("human")).toEqual(["conv-with-agent", "conv-waiting", "conv-rescued"]);

    const deliveries = await storage.listDeliveries({ userId: "user-1", limit: 10 });
    expect(deliveries.map((delivery) => delivery.id)).toEqual(["delivery-2", "delivery-1"]);
    expect(await storage.listDeliveries({ userId: "someone-else", limit: 10 })).toEqual([]);
    await storage.close();

    const database = openDatabase({ path });
    const searchIndex = createSqliteSearchIndex({ database });
    try {
      const documents = await searchIndex.listDocuments("bot-1", { limit: 10 });
      expect(documents.map(({ source, title, type, chunks, bytes }) => ({ source, title, type, chunks, bytes })).sort((a, b) => a.source.localeCompare(b.source))).toEqual([
        { source: "faq", title: "FAQ", type: "text", chunks: 1, bytes: Buffer.byteLength("Open at nine.") },
        { source: "shipping.md", title: "Shipping", type: "markdown", chunks: 2, bytes: Buffer.byteLength("Parcels take four days.Returns are free.") },
      ]);
      expect(await searchIndex.documentStats("bot-1")).toEqual({ documents: 2, chunks: 3 });
    } finally {
      database.close();
    }
  });
});
