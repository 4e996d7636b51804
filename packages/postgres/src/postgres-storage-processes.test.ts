import { randomUUID } from "node:crypto";
import type { AcceptUserMessage, Storage } from "@parley/core";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { createPool } from "./postgres-database.js";
import { createPostgresStorage } from "./postgres-storage.js";
import { skipWithoutPostgres, testDatabaseUrl, truncateStorage, useTestSchema } from "./test-postgres.js";

// Several "processes" on one database: each storage below has a pool of its own, as each server
// process would, so their transactions meet only in PostgreSQL.

const START = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000;
const SECOND = 1_000_000;

async function seed(storage: Storage) {
  await storage.ensurePlan({ name: "free", monthlyMessages: 1000 });
  const user = await storage.createUser({ id: randomUUID(), email: `${randomUUID()}@example.com`, planName: "free", monthlyMessagesOverride: null, createdAt: START });
  const chatbot = await storage.createChatbot(
    { id: randomUUID(), ownerId: user.id, name: "Support", provider: "openai", model: "m", systemPrompt: "p", fallbackMessage: "f", isActive: true, createdAt: START, updatedAt: START, deletedAt: null },
    "support",
  );
  const input = (overrides: Partial<AcceptUserMessage> = {}): AcceptUserMessage => ({
    userId: user.id, month: "2026-11", monthlyLimit: 10, chatbotId: chatbot.id, sessionId: "s", content: "hi",
    newConversationId: randomUUID(), messageId: randomUUID(), eventIds: [randomUUID(), randomUUID()], historyLimit: 5,
    events: () => [], at: START, ...overrides,
  });
  return { user, chatbot, input };
}

if (testDatabaseUrl === undefined) {
  skipWithoutPostgres("PostgreSQL storage across pools (as across processes)");
} else {
  const url = testDatabaseUrl;
  const shared = useTestSchema(url, ["storage"], 2);
  const schemaOf = async () => (await shared().query<{ schema: string }>("SELECT current_schema() AS schema")).rows[0]!.schema;
  const storages = async (count: number) => {
    const schema = await schemaOf();
    const pools = Array.from({ length: count }, () => createPool({ url, poolSize: 8, schema }));
    return { stores: pools.map((pool) => createPostgresStorage({ pool, ownsPool: true })), close: () => Promise.all(pools.map((pool) => pool.end())) };
  };

  describe("PostgreSQL storage across pools (as across processes)", () => {
    it("60 concurrent messages from three pools with 7 of the quota left accept exactly 7", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(3);
      try {
        const { input } = await seed(stores[0]!);
        const results = await Promise.all(
          Array.from({ length: 60 }, (_, index) => stores[index % 3]!.acceptUserMessage(input({ monthlyLimit: 7, sessionId: `s${index % 4}` }))),
        );
        expect(results.filter((result) => result.accepted)).toHaveLength(7);
        expect(await stores[1]!.getMonthlyUsage(input().userId, "2026-11")).toBe(7);
        // Four sessions, one conversation each, however the first messages raced.
        const created = results.filter((result) => result.accepted && result.conversationCreated);
        expect(new Set(created.map((result) => result.accepted && result.conversation.sessionId)).size).toBe(created.length);
      } finally {
        await close();
      }
    });

    it("claims from three pools at once never lease one attempt twice, and each delivery is claimed", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(3);
      try {
        const { user, input } = await seed(stores[0]!);
        await stores[0]!.createWebhookSubscription({ id: randomUUID(), userId: user.id, url: "http://127.0.0.1:9/", chatbotId: null, eventTypes: [], signingKeyId: "k", publicOnly: false, createdAt: START });
        for (let index = 0; index < 30; index += 1) {
          await stores[0]!.acceptUserMessage(input({ monthlyLimit: 100, at: START + index, events: ({ conversation, message }) => [
            { id: randomUUID(), type: "message.received", userId: user.id, chatbotId: conversation.chatbotId, createdAt: START + index, data: { message_id: message.id } } as never,
          ] }));
        }
        const fanned = await Promise.all(stores.map((storage) => storage.fanOutOutboxEvents({ limit: 100, at: START + SECOND, newId: () => randomUUID() })));
        expect(fanned.reduce((sum, result) => sum + result.deliveries, 0)).toBe(30);
        const now = START + 2 * SECOND;
        const claims = await Promise.all(
          Array.from({ length: 9 }, (_, index) =>
            stores[index % 3]!.claimDueDeliveries({ now, limit: 4, perSubscriptionLimit: 100, skipSubscriptionIds: [], leaseUntil: now + 60 * SECOND }),
          ),
        );
        const ids = claims.flat().map((claim) => claim.delivery.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toHaveLength(30);
      } finally {
        await close();
      }
    });

    it("keeps NUL characters of a message, its session and its event as given", async () => {
      await truncateStorage(shared());
      const storage = createPostgresStorage({ pool: shared() });
      const { input, chatbot } = await seed(storage);
      const content = "a\u0000b \\0 \uE000c";
      const result = await storage.acceptUserMessage(input({ content, sessionId: "\uE000s\u0000", events: ({ message }) => [
        { id: randomUUID(), type: "message.received", userId: chatbot.ownerId, chatbotId: chatbot.id, createdAt: START, data: { content: message.content } } as never,
      ] }));
      expect(result.accepted).toBe(true);
      const conversation = await storage.findConversation(chatbot.id, "\uE000s\u0000");
      expect((await storage.listMessages(conversation!.id)).map((message) => message.content)).toEqual([content]);
      expect((await storage.listOutboxEvents({ limit: 1 }))[0]!.data).toEqual({ content });
    });

    it("cancels a statement that runs past the pool's statement timeout", async () => {
      const pool = createPool({ url, poolSize: 1, statementTimeoutMs: 50 });
      try {
        const error = await pool.query("SELECT pg_sleep(2)").catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(pg.DatabaseError);
        expect((error as pg.DatabaseError).code).toBe("57014"); // query_canceled
      } finally {
        await pool.end();
      }
    });
  });
}
