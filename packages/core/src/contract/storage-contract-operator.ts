import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { Ingestion } from "../domain/ingestion.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import { messageSent } from "../events/outbox-events.js";
import { START, acceptMessage, seedChatbot, seedUser, uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** Keys, the inbox, the outbox feed, usage and ingestions: what the operator API reads and writes. */
export function registerOperatorTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);
  const reply = (chatbot: Chatbot, conversationId: string, at: number, needsAttention = false, content = "answer") =>
    storage().appendAssistantMessage({
      id: context.nextId(), conversationId, content, author: "model", needsAttention, at,
      events: (conversation, message) => [messageSent(context.nextId(), chatbot.ownerId, conversation, message)],
    });

  describe("operator", () => {
    test("keys are listed per user newest first, found by id, and record their last use", async () => {
      const user = await seedUser(context);
      const other = await seedUser(context);
      const key = (userId: string, at: number, hash: string) =>
        ({ id: context.nextId(), userId, name: "k", keyHash: hash.repeat(64), scope: "admin" as const, createdAt: at, revokedAt: null, lastUsedAt: null });
      const [older, newer] = [key(user.id, START, "a"), key(user.id, START + 5, "b")];
      for (const each of [older, newer, key(other.id, START + 9, "c")]) await storage().createApiKey(each);
      expect(await storage().listApiKeys(user.id)).toEqual([newer, older]);
      await storage().touchApiKey(older.id, START + 60);
      expect(await storage().getApiKey(older.id)).toEqual({ ...older, lastUsedAt: START + 60 });
      expect((await storage().findApiKeyByHash(older.keyHash))?.apiKey.lastUsedAt).toBe(START + 60);
      expect(await storage().getApiKey(uuidOf(999))).toBeNull();
    });

    test("conversations keep their activity, count and attention, and replies write their events in the same step", async () => {
      const chatbot = await seedChatbot(context, (await seedUser(context)).id);
      const { conversation } = await accept(chatbot, { at: START + 10 });
      const fallback = await reply(chatbot, conversation.id, START + 11, true, "Sorry.");
      expect(fallback.events.map((event) => event.type)).toEqual(["message.sent"]);
      expect(await storage().getConversation(conversation.id)).toEqual({
        ...conversation, needsAttention: true, attentionReason: "fallback", messageCount: 2, updatedAt: START + 11, lastMessage: fallback.message,
      });
      await reply(chatbot, conversation.id, START + 12);
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: false, messageCount: 3, updatedAt: START + 12 });
      await storage().markNeedsAttention(conversation.id, START + 13);
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: true, updatedAt: START + 13 });
      expect((await storage().listOutboxEvents({ limit: 10 })).map((event) => event.type)).toEqual(["conversation.started", "message.received", "message.sent", "message.sent"]);
      expect(await storage().getConversation(uuidOf(999))).toBeNull();
    });

    test("listConversations lists the owner's by newest activity, filtered by chatbot and status, after a position, never a deleted chatbot's", async () => {
      const owner = await seedUser(context);
      const [first, second, gone] = [await seedChatbot(context, owner.id), await seedChatbot(context, owner.id), await seedChatbot(context, owner.id)];
      const other = await seedChatbot(context, (await seedUser(context)).id);
      const a = (await accept(first, { sessionId: "a", at: START + 1 })).conversation;
      const b = (await accept(second, { sessionId: "b", at: START + 2 })).conversation;
      const c = (await accept(first, { sessionId: "c", at: START + 3 })).conversation;
      await accept(other, { sessionId: "x", at: START + 9 });
      await accept(gone, { sessionId: "g", at: START + 9 });
      await storage().updateChatbot(gone.id, { deletedAt: START + 10 });
      await accept(first, { sessionId: "a", at: START + 4 }); // a moves to the top
      await storage().setHumanTakeover({ chatbotId: second.id, sessionId: "b", humanTakeover: true, newConversationId: uuidOf(998), at: START + 2, events: () => [] });
      await storage().markNeedsAttention(c.id, START + 3);
      const ids = async (filter: Partial<Parameters<ReturnType<typeof storage>["listConversations"]>[0]>) =>
        (await storage().listConversations({ ownerId: owner.id, limit: 10, ...filter })).map((listed) => listed.id);
      expect(await ids({})).toEqual([a.id, c.id, b.id]);
      expect(await ids({ chatbotId: first.id })).toEqual([a.id, c.id]);
      expect(await ids({ chatbotId: other.id })).toEqual([]);
      expect(await ids({ status: "human" })).toEqual([b.id]);
      expect(await ids({ status: "bot" })).toEqual([a.id, c.id]);
      expect(await ids({ status: "attention" })).toEqual([c.id]);
      expect(await ids({ limit: 1 })).toEqual([a.id]);
      expect(await ids({ after: { at: START + 3, id: c.id } })).toEqual([b.id]);
      const [top] = await storage().listConversations({ ownerId: owner.id, limit: 1 });
      expect(top).toMatchObject({ messageCount: 2, updatedAt: START + 4, lastMessage: { content: "Hello", role: "user" } });
    });

    test("listMessagesAfter returns the messages after one of the conversation's, or null for any other id", async () => {
      const chatbot = await seedChatbot(context, (await seedUser(context)).id);
      const first = await accept(chatbot, { content: "one" });
      const later = (await reply(chatbot, first.conversation.id, START + 1)).message;
      const elsewhere = await accept(chatbot, { sessionId: "elsewhere" });
      expect(await storage().listMessagesAfter(first.conversation.id, first.message.id)).toEqual([later]);
      expect(await storage().listMessagesAfter(first.conversation.id, later.id)).toEqual([]);
      expect(await storage().listMessagesAfter(first.conversation.id, elsewhere.message.id)).toBeNull();
      expect(await storage().listMessagesAfter(first.conversation.id, uuidOf(999))).toBeNull();
    });

    test("the outbox reads by position, for everyone or one user, and knows each event's position", async () => {
      expect(await storage().latestOutboxPosition()).toBe(0);
      const mine = await seedChatbot(context, (await seedUser(context)).id);
      const theirs = await seedChatbot(context, (await seedUser(context)).id);
      const first = await accept(mine, { sessionId: "one" });
      await accept(theirs, { sessionId: "two" });
      const third = await accept(mine, { sessionId: "three" });
      const all = await storage().readOutbox({ afterPosition: 0, limit: 100 });
      expect(all.map((entry) => entry.event.id)).toEqual((await storage().listOutboxEvents({ limit: 100 })).map((event) => event.id));
      expect(all.map((entry) => entry.position)).toEqual([...all.map((entry) => entry.position)].sort((x, y) => x - y));
      expect(new Set(all.map((entry) => entry.position)).size).toBe(6);
      expect(await storage().latestOutboxPosition()).toBe(all.at(-1)!.position);
      const afterFirst = (await storage().outboxPosition(first.events.at(-1)!.id))!;
      const minesAfter = await storage().readOutbox({ afterPosition: afterFirst, limit: 100, userId: mine.ownerId });
      expect(minesAfter.map((entry) => entry.event.id)).toEqual(third.events.map((event) => event.id));
      expect(await storage().readOutbox({ afterPosition: afterFirst, limit: 1 })).toHaveLength(1);
      expect(await storage().outboxPosition(uuidOf(999))).toBeNull();
    });

    test("getUsageBreakdown counts the owner's user messages in the range, per chatbot and per UTC day", async () => {
      const owner = await seedUser(context);
      const [first, second] = [await seedChatbot(context, owner.id), await seedChatbot(context, owner.id)];
      const day = 86_400_000_000;
      const { conversation } = await accept(first, { at: START });
      await reply(first, conversation.id, START + 1); // replies are not counted
      await accept(first, { at: START + day });
      await accept(second, { sessionId: "s", at: START + day });
      await accept(second, { sessionId: "s", at: START + 40 * day }); // outside the range
      await accept(await seedChatbot(context, (await seedUser(context)).id), { at: START }); // another owner's
      expect(await storage().getUsageBreakdown(owner.id, { from: START, to: START + 30 * day })).toEqual({
        byChatbot: [{ chatbotId: first.id, messages: 2 }, { chatbotId: second.id, messages: 1 }],
        byDay: [{ date: "2026-11-21", messages: 1 }, { date: "2026-11-22", messages: 2 }],
      });
    });

    test("claimIngestion leases the oldest queued ingestion, then one whose lease ended, and never a live one", async () => {
      const chatbot = await seedChatbot(context, (await seedUser(context)).id);
      const ingestion = (id: string, createdAt: number): Ingestion => ({
        id, userId: chatbot.ownerId, chatbotId: chatbot.id, status: "queued", request: { kind: "text", title: "t", text: "x" },
        documentsTotal: 1, documentsDone: 0, chunks: 0, errors: [], createdAt, startedAt: null, finishedAt: null, leasedUntil: null, attempts: 0,
      });
      const [older, newer] = [ingestion(context.nextId(), START), ingestion(context.nextId(), START + 1)];
      expect(await storage().createIngestion(newer)).toEqual(newer);
      await storage().createIngestion(older);
      const claimed = await storage().claimIngestion({ now: START + 10, leaseUntil: START + 100, perUser: 10 });
      expect(claimed).toEqual({ ...older, status: "running", startedAt: START + 10, leasedUntil: START + 100, documentsTotal: null, attempts: 1 });
      expect((await storage().claimIngestion({ now: START + 20, leaseUntil: START + 120, perUser: 10 }))?.id).toBe(newer.id);
      expect(await storage().claimIngestion({ now: START + 99, leaseUntil: START + 199, perUser: 10 })).toBeNull();
      // The first runner died: its lease ended, and the next claim takes the ingestion up from scratch.
      const retaken = await storage().claimIngestion({ now: START + 100, leaseUntil: START + 200, perUser: 10 });
      expect(retaken).toMatchObject({ id: older.id, status: "running", startedAt: START + 100, documentsDone: 0, attempts: 2 });
      expect(await storage().getIngestion(uuidOf(999))).toBeNull();
    });

    test("updateIngestion records progress and the end of the current run, and ignores a run that was taken over", async () => {
      const chatbot = await seedChatbot(context, (await seedUser(context)).id);
      const id = context.nextId();
      await storage().createIngestion({
        id, userId: chatbot.ownerId, chatbotId: chatbot.id, status: "queued", request: { kind: "url", url: "https://example.com", crawl: "site", maxPages: 5 },
        documentsTotal: null, documentsDone: 0, chunks: 0, errors: [], createdAt: START, startedAt: null, finishedAt: null, leasedUntil: null, attempts: 0,
      });
      await storage().claimIngestion({ now: START + 1, leaseUntil: START + 2, perUser: 10 });
      await storage().claimIngestion({ now: START + 3, leaseUntil: START + 50, perUser: 10 }); // the first run's lease ended
      const facts = { documentsTotal: 3, documentsDone: 2, chunks: 7, errors: [{ source: "https://example.com/b", detail: "HTTP 404" }] };
      const progress = { ...facts, leaseUntil: START + 60 };
      expect(await storage().updateIngestion(id, { ...progress, startedAt: START + 1 })).toBeNull();
      expect(await storage().updateIngestion(id, { ...progress, startedAt: START + 3 })).toMatchObject({ ...facts, status: "running", leasedUntil: START + 60 });
      const done = await storage().updateIngestion(id, { ...progress, documentsDone: 3, startedAt: START + 3, finished: { status: "succeeded", at: START + 70 } });
      expect(done).toMatchObject({ status: "succeeded", finishedAt: START + 70, leasedUntil: null, documentsDone: 3 });
      expect(await storage().getIngestion(id)).toEqual(done);
      expect(await storage().updateIngestion(id, { ...progress, startedAt: START + 3 })).toBeNull();
      expect(await storage().claimIngestion({ now: START + 1000, leaseUntil: START + 2000, perUser: 10 })).toBeNull();
    });

    test("claimIngestion shares the runners between users: perUser live leases at most, the user served longest ago first", async () => {
      const [greedy, other, third] = [await seedUser(context), await seedUser(context), await seedUser(context)];
      const bots = { greedy: await seedChatbot(context, greedy.id), other: await seedChatbot(context, other.id), third: await seedChatbot(context, third.id) };
      const queue = async (bot: typeof bots.greedy, createdAt: number) => {
        const id = context.nextId();
        await storage().createIngestion({
          id, userId: bot.ownerId, chatbotId: bot.id, status: "queued", request: { kind: "text", title: "t", text: "x" },
          documentsTotal: 1, documentsDone: 0, chunks: 0, errors: [], createdAt, startedAt: null, finishedAt: null, leasedUntil: null, attempts: 0,
        });
        return id;
      };
      // One user queues three before anyone else; the others queue one each, later.
      const greedyIds = [await queue(bots.greedy, START), await queue(bots.greedy, START + 1), await queue(bots.greedy, START + 2)];
      const otherId = await queue(bots.other, START + 10);
      const thirdId = await queue(bots.third, START + 11);
      const claim = (now: number, perUser = 1) => storage().claimIngestion({ now, leaseUntil: now + 1_000, perUser });
      expect((await claim(START + 20))?.id).toBe(greedyIds[0]);
      // The greedy user holds its one share: the next runners go to the others, oldest first.
      expect((await claim(START + 21))?.id).toBe(otherId);
      expect((await claim(START + 22))?.id).toBe(thirdId);
      expect(await claim(START + 23)).toBeNull();
      // With two shares each, the greedy user gets a second runner.
      expect((await claim(START + 24, 2))?.id).toBe(greedyIds[1]);
      expect(await claim(START + 25, 2)).toBeNull();
    });
  });
}
