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

/** Every statement a pool sends from now on, through `pool.query` and through clients it lends (BEGIN and COMMIT included). */
function countStatements(pool: pg.Pool) {
  const statements: string[] = [];
  const text = (query: unknown) => String(typeof query === "object" && query !== null && "text" in query ? (query as { text: string }).text : query);
  const { query, connect } = pool;
  pool.query = ((...args: unknown[]) => (statements.push(text(args[0])), (query as (...a: unknown[]) => unknown).apply(pool, args))) as typeof pool.query;
  // pool.query lends itself a client through connect(callback): counted above already.
  pool.connect = ((...args: unknown[]) => (args.length > 0 ? (connect as (...a: unknown[]) => unknown).apply(pool, args) : lend())) as typeof pool.connect;
  const lend = async () => {
    const client = await (connect as () => Promise<pg.PoolClient>).apply(pool);
    const clientQuery = client.query;
    client.query = ((...args: unknown[]) => (statements.push(text(args[0])), (clientQuery as (...a: unknown[]) => unknown).apply(client, args))) as typeof client.query;
    const release = client.release;
    client.release = ((...args: Parameters<typeof release>) => ((client.query = clientQuery), release.apply(client, args))) as typeof client.release;
    return client;
  };
  return { statements, restore: () => ((pool.query = query), (pool.connect = connect)) };
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

    it("100 concurrent first messages of 100 sessions from three pools with 37 of the quota left accept exactly 37", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(3);
      try {
        const { input } = await seed(stores[0]!);
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, index) => stores[index % 3]!.acceptUserMessage(input({ monthlyLimit: 37, sessionId: `s${index}` }))),
        );
        expect(results.filter((result) => result.accepted)).toHaveLength(37);
        expect(await stores[1]!.getMonthlyUsage(input().userId, "2026-11")).toBe(37);
      } finally {
        await close();
      }
    });

    it("one user's concurrent messages reserve on several usage stripes, whose counts add up to the month's and never past the limit", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(3);
      try {
        const { user, input } = await seed(stores[0]!);
        const results = await Promise.all(
          Array.from({ length: 40 }, (_, index) => stores[index % 3]!.acceptUserMessage(input({ monthlyLimit: 1000, sessionId: `s${index}` }))),
        );
        expect(results.filter((result) => result.accepted)).toHaveLength(40);
        expect(await stores[2]!.getMonthlyUsage(user.id, "2026-11")).toBe(40);
        const { rows } = await shared().query<{ stripes: number; used: number; shares: number }>(
          "SELECT count(*) FILTER (WHERE used > 0)::int AS stripes, sum(used)::int AS used, sum(allowance) FILTER (WHERE basis = 1000)::int AS shares FROM monthly_usage WHERE user_id = $1",
          [user.id],
        );
        expect(rows[0]!.stripes).toBeGreaterThan(1);
        expect(rows[0]!.used).toBe(40);
        expect(rows[0]!.shares).toBeLessThanOrEqual(1000);
      } finally {
        await close();
      }
    });

    it("a limit raised after it was reached lets messages in again, and a lowered one refuses at once", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(1);
      const storage = stores[0]!;
      try {
        const { user, input } = await seed(storage);
        const send = (monthlyLimit: number) => storage.acceptUserMessage(input({ monthlyLimit }));
        expect((await send(2)).accepted).toBe(true);
        expect((await send(2)).accepted).toBe(true);
        expect(await send(2)).toEqual({ accepted: false, used: 2 });
        for (let count = 0; count < 3; count += 1) expect((await send(5)).accepted).toBe(true);
        expect(await send(5)).toEqual({ accepted: false, used: 5 });
        expect(await send(3)).toEqual({ accepted: false, used: 5 });
        expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(5);
      } finally {
        await close();
      }
    });

    it("a month counted before the stripes (one row, as the migration leaves it) keeps counting from there", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(1);
      const storage = stores[0]!;
      try {
        const { user, input } = await seed(storage);
        await shared().query("INSERT INTO monthly_usage (user_id, month, used) VALUES ($1, '2026-11', 5)", [user.id]);
        expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(5);
        expect((await storage.acceptUserMessage(input({ monthlyLimit: 6 }))).accepted).toBe(true);
        expect(await storage.acceptUserMessage(input({ monthlyLimit: 6 }))).toEqual({ accepted: false, used: 6 });
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

    it("fanning out from three pools at once marks every event once, and only those a subscription wants get deliveries", async () => {
      await truncateStorage(shared());
      const { stores, close } = await storages(3);
      try {
        const subscribed = await seed(stores[0]!);
        const unsubscribed = await seed(stores[0]!);
        await stores[0]!.createWebhookSubscription({ id: randomUUID(), userId: subscribed.user.id, url: "http://127.0.0.1:9/", chatbotId: null, eventTypes: [], signingKeyId: "k", publicOnly: false, createdAt: START });
        // Interleaved in the outbox: a pass meets both kinds in one batch.
        const wantedIds: string[] = [];
        for (let index = 0; index < 40; index += 1) {
          const { user, input } = index % 2 === 0 ? subscribed : unsubscribed;
          const id = randomUUID();
          if (user === subscribed.user) wantedIds.push(id);
          await stores[0]!.acceptUserMessage(input({ monthlyLimit: 100, sessionId: `s${index}`, at: START + index, events: ({ conversation }) => [
            { id, type: "message.received", userId: user.id, chatbotId: conversation.chatbotId, createdAt: START + index, data: {} } as never,
          ] }));
        }
        const totals = { events: 0, deliveries: 0 };
        // Each pool fans out in batches of 7 until it finds nothing, all three side by side.
        await Promise.all(stores.map(async (storage) => {
          for (;;) {
            const { events, deliveries } = await storage.fanOutOutboxEvents({ limit: 7, at: START + SECOND, newId: () => randomUUID() });
            totals.events += events;
            totals.deliveries += deliveries;
            if (events === 0) return;
          }
        }));
        expect(totals).toEqual({ events: 40, deliveries: 20 });
        expect((await shared().query("SELECT seq FROM outbox_events WHERE dispatched_at IS NULL")).rows).toEqual([]);
        const deliveries = await stores[1]!.listDeliveries({ limit: 100 });
        expect(deliveries.map((delivery) => delivery.eventId).sort()).toEqual([...wantedIds].sort());
      } finally {
        await close();
      }
    });

    it("a fan-out of events no subscription wants is one statement, without BEGIN and COMMIT", async () => {
      await truncateStorage(shared());
      const storage = createPostgresStorage({ pool: shared() });
      const { input } = await seed(storage);
      for (let index = 0; index < 3; index += 1) {
        await storage.acceptUserMessage(input({ monthlyLimit: 100, sessionId: `s${index}`, at: START + index, events: ({ conversation }) => [
          { id: randomUUID(), type: "message.received", userId: input().userId, chatbotId: conversation.chatbotId, createdAt: START + index, data: {} } as never,
          { id: randomUUID(), type: "message.received", userId: input().userId, chatbotId: conversation.chatbotId, createdAt: START + index, data: {} } as never,
        ] }));
      }
      const sent = countStatements(shared());
      try {
        expect(await storage.fanOutOutboxEvents({ limit: 100, at: START + SECOND, newId: () => randomUUID() })).toEqual({ events: 6, deliveries: 0 });
        expect(sent.statements).toHaveLength(1);
      } finally {
        sent.restore();
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
