import type { AcceptUserMessage, OutboxEvent, Storage } from "@parley/core";
import { messageSent, takeoverChanged } from "@parley/core";
import { createMemoryStorage } from "@parley/core/memory";
import { describe, expect, it } from "vitest";
import { createPostgresStorage } from "./postgres-storage.js";
import { skipWithoutPostgres, testDatabaseUrl, truncateStorage, useTestSchema } from "./test-postgres.js";

// The operator steps of the Storage port (inbox lists, the outbox feed, usage, ingestions) have
// their contract cases (@parley/core/contract, storage-contract-operator.ts); beyond them, one
// longer script runs on the memory adapter (the reference) and on PostgreSQL, and every read
// must agree.

const START = Date.UTC(2026, 10, 21, 10, 0, 0) * 1000;
const DAY = 86_400_000_000;
const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`;

/** Two users, three chatbots (one deleted), conversations with replies, a takeover and a fallback. */
async function script(storage: Storage) {
  await storage.ensurePlan({ name: "free", monthlyMessages: 1000 });
  for (const user of [1, 2]) await storage.createUser({ id: id(user), email: `u${user}@example.com`, planName: "free", monthlyMessagesOverride: null, createdAt: START });
  const bot = async (n: number, owner: number) =>
    storage.createChatbot({ id: id(n), ownerId: id(owner), name: `Bot ${n}`, provider: "openai", model: "m", systemPrompt: "p", fallbackMessage: "f", isActive: true, createdAt: START, updatedAt: START, deletedAt: null }, `bot-${n}`);
  await bot(10, 1);
  await bot(11, 1);
  await bot(12, 2);
  let next = 100;
  const events: OutboxEvent[] = [];
  const accept = async (chatbot: number, owner: number, session: string, at: number) => {
    const input: AcceptUserMessage = {
      userId: id(owner), month: "2026-11", monthlyLimit: 100, chatbotId: id(chatbot), sessionId: session, content: `to ${chatbot} at ${at}`,
      newConversationId: id(next++), messageId: id(next++), eventIds: [id(next++), id(next++)], historyLimit: 10, at,
      events: ({ conversation, message }) => [{ id: id(next++), type: "message.received", userId: id(owner), chatbotId: conversation.chatbotId, createdAt: at, data: { message_id: message.id } } as OutboxEvent],
    };
    const result = await storage.acceptUserMessage(input);
    if (!result.accepted) throw new Error("refused");
    events.push(...result.events);
    return result.conversation;
  };
  const reply = async (conversationId: string, owner: number, at: number, needsAttention: boolean) =>
    storage.appendAssistantMessage({
      id: id(next++), conversationId, content: needsAttention ? "f" : `reply at ${at}`, author: "model", needsAttention, at,
      events: (conversation, message) => [messageSent(id(next++), id(owner), conversation, message)],
    });
  const a = await accept(10, 1, "alice", START + 1);
  await reply(a.id, 1, START + 2, false);
  const b = await accept(10, 1, "bob", START + DAY);
  await reply(b.id, 1, START + DAY + 1, true);
  const c = await accept(11, 1, "carol", START + 2 * DAY);
  await storage.setHumanTakeover({
    chatbotId: id(11), sessionId: "carol", humanTakeover: true, newConversationId: id(next++), at: START + 2 * DAY + 5,
    events: ({ conversation }) => [takeoverChanged(id(next++), id(1), conversation, true, START + 2 * DAY + 5)],
  });
  await accept(12, 2, "dave", START + 3 * DAY);
  const e = await accept(10, 1, "erin", START + 4 * DAY);
  await storage.markNeedsAttention(e.id, START + 4 * DAY + 9);
  await accept(11, 1, "frank", START + 5 * DAY);
  await storage.updateChatbot(id(11), { deletedAt: START + 6 * DAY });
  await storage.createIngestion({
    id: id(900), userId: id(1), chatbotId: id(10), status: "queued", request: { urls: ["https://example.com/a"] } as never,
    documentsTotal: null, documentsDone: 0, chunks: 0, errors: [], createdAt: START, startedAt: null, finishedAt: null, leasedUntil: null, attempts: 0,
  });
  return { a, b, c, e };
}

/** Every operator read, in one object, for comparing two adapters. */
async function reads(storage: Storage, facts: Awaited<ReturnType<typeof script>>) {
  const page1 = await storage.listConversations({ ownerId: id(1), limit: 2 });
  const last = page1.at(-1)!;
  const claimed = await storage.claimIngestion({ now: START + 7 * DAY, leaseUntil: START + 7 * DAY + 60, perUser: 1 });
  const updated = await storage.updateIngestion(id(900), {
    startedAt: claimed!.startedAt!, documentsTotal: 1, documentsDone: 1, chunks: 3, errors: [], leaseUntil: START + 8 * DAY, finished: { status: "succeeded", at: START + 7 * DAY + 30 },
  });
  return {
    all: await storage.listConversations({ ownerId: id(1), limit: 10 }),
    page1,
    page2: await storage.listConversations({ ownerId: id(1), limit: 10, after: { at: last.updatedAt, id: last.id } }),
    byChatbot: await storage.listConversations({ ownerId: id(1), chatbotId: id(10), limit: 10 }),
    attention: await storage.listConversations({ ownerId: id(1), status: "attention", limit: 10 }),
    human: await storage.listConversations({ ownerId: id(1), status: "human", limit: 10 }),
    bot: await storage.listConversations({ ownerId: id(1), status: "bot", limit: 10 }),
    other: await storage.listConversations({ ownerId: id(2), limit: 10 }),
    one: await storage.getConversation(facts.b.id),
    none: await storage.getConversation(id(999_999)),
    after: await storage.listMessagesAfter(facts.a.id, (await storage.listMessages(facts.a.id))[0]!.id),
    afterForeign: await storage.listMessagesAfter(facts.b.id, (await storage.listMessages(facts.a.id))[0]!.id),
    feed: await storage.readOutbox({ afterPosition: 2, limit: 3 }),
    userFeed: (await storage.readOutbox({ afterPosition: 0, limit: 100, userId: id(2) })).map((entry) => entry.event),
    latest: await storage.latestOutboxPosition(),
    usage: await storage.getUsageBreakdown(id(1), { from: START, to: START + 5 * DAY }),
    claimed,
    updated,
    again: await storage.claimIngestion({ now: START + 9 * DAY, leaseUntil: START + 9 * DAY + 60, perUser: 1 }),
  };
}

if (testDatabaseUrl === undefined) {
  skipWithoutPostgres("the operator steps of PostgreSQL storage, against the memory adapter");
} else {
  const pool = useTestSchema(testDatabaseUrl);
  describe("the operator steps of PostgreSQL storage, against the memory adapter", () => {
    it("lists, pages, filters, feeds, counts usage and leases ingestions as the memory adapter does", async () => {
      await truncateStorage(pool());
      const memory = createMemoryStorage();
      const postgres = createPostgresStorage({ pool: pool() });
      const expected = await reads(memory, await script(memory));
      const actual = await reads(postgres, await script(postgres));
      expect(expected.all.length).toBe(3); // the deleted chatbot's conversations are not listed
      expect(expected.attention.map((conversation) => conversation.sessionId).sort()).toEqual(["bob", "erin"]);
      expect(actual).toEqual(expected);
    });
  });
}
