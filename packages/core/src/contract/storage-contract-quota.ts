import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import type { ReadChatState, ReadKeyedChatState } from "../ports/chat-state.js";
import { MONTH, START, acceptInput, acceptMessage, seedOwnedChatbot, uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** The monthly quota reserved by acceptUserMessage, alone and under concurrent calls. */
export function registerQuotaTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const seed = () => seedOwnedChatbot(context);
  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);

  describe("monthly quota", () => {
    test("a refused message writes nothing: no conversation, no message, no event, no count", async () => {
      const chatbot = await seed();
      const kept = await accept(chatbot, { monthlyLimit: 2 });
      await accept(chatbot, { monthlyLimit: 2, at: START + 1 });
      const eventsBefore = await storage().listOutboxEvents({ limit: 10 });
      expect(await storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 2, sessionId: "new-session" }))).toEqual({ accepted: false, used: 2 });
      expect(await storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 2 }))).toEqual({ accepted: false, used: 2 });
      expect(await storage().findConversation(chatbot.id, "new-session")).toBeNull();
      expect(await storage().listMessages(kept.conversation.id)).toHaveLength(2);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(eventsBefore);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(2);
    });

    test("a limit of 0, or one lowered below the count, refuses and reports the count", async () => {
      const chatbot = await seed();
      expect(await storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 0 }))).toEqual({ accepted: false, used: 0 });
      for (let count = 0; count < 3; count += 1) await accept(chatbot, { at: START + count });
      expect(await storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 2 }))).toEqual({ accepted: false, used: 3 });
    });

    test("months and users are separate counters", async () => {
      const chatbot = await seed();
      const otherChatbot = await seed();
      await accept(chatbot, { month: "2026-10", monthlyLimit: 1 });
      expect((await storage().acceptUserMessage(acceptInput(context, chatbot, { month: "2026-10", monthlyLimit: 1 }))).accepted).toBe(false);
      await accept(chatbot, { month: "2026-11", monthlyLimit: 1 });
      await accept(otherChatbot, { month: "2026-11", monthlyLimit: 1 });
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-10")).toBe(1);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(1);
      expect(await storage().getMonthlyUsage(otherChatbot.ownerId, "2026-11")).toBe(1);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-12")).toBe(0);
    });

    test("readChatState reads the chatbot, the plan, the month's usage and the conversation together", async () => {
      const chatbot = await seed();
      const owner = chatbot.ownerId;
      await storage().upsertPlan({ name: "pro", monthlyMessages: 5000 });
      const read = (overrides: Partial<ReadChatState> = {}) => storage().readChatState({ chatbotId: chatbot.id, sessionId: "session-1", userId: owner, planName: "pro", month: MONTH, ...overrides });
      expect(await read()).toEqual({ chatbot, plan: { name: "pro", monthlyMessages: 5000 }, used: 0, conversation: null });
      const accepted = await accept(chatbot);
      expect(await read()).toEqual({ chatbot, plan: { name: "pro", monthlyMessages: 5000 }, used: 1, conversation: accepted.conversation });
      expect(await read({ sessionId: "session-\u0000two", planName: "none", month: "2026-01" })).toEqual({ chatbot, plan: null, used: 0, conversation: null });
      expect((await read({ chatbotId: uuidOf(998) })).chatbot).toBeNull();
    });

    test("readKeyedChatState reads the key and its user with the chat's state as that user", async () => {
      const chatbot = await seed();
      const user = (await storage().getUser(chatbot.ownerId))!;
      await storage().upsertPlan({ name: user.planName, monthlyMessages: 70 });
      const apiKey = { id: context.nextId(), userId: user.id, name: "chat \u0000key", keyHash: "d".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: START + 5 };
      await storage().createApiKey(apiKey);
      const read = (overrides: Partial<ReadKeyedChatState> = {}) => storage().readKeyedChatState({ keyHash: apiKey.keyHash, chatbotId: chatbot.id, sessionId: "session-1", month: MONTH, ...overrides });
      const plan = { name: user.planName, monthlyMessages: 70 };
      expect(await read()).toEqual({ key: { apiKey, user }, state: { chatbot, plan, used: 0, conversation: null } });
      const accepted = await accept(chatbot);
      const own = await accept(chatbot, { sessionId: `api-${user.id}`, at: START + 1 });
      expect(await read()).toEqual({ key: { apiKey, user }, state: { chatbot, plan, used: 2, conversation: accepted.conversation } });
      // No session: the user's own conversation.
      expect((await read({ sessionId: null })).state.conversation).toEqual(own.conversation);
      expect(await read({ chatbotId: null })).toEqual({ key: { apiKey, user }, state: { chatbot: null, plan, used: 2, conversation: null } });
      expect((await read({ chatbotId: uuidOf(997) })).state).toEqual({ chatbot: null, plan, used: 2, conversation: null });
      // An unknown key reads nothing else.
      expect(await read({ keyHash: "e".repeat(64) })).toEqual({ key: null, state: { chatbot: null, plan: null, used: 0, conversation: null } });
    });

    test("a message accepted with the conversation as read before it changed is stored, counted and evented from the stored one", async () => {
      const chatbot = await seed();
      await accept(chatbot);
      const read = await storage().findConversation(chatbot.id, "session-1");
      // Since the read: another message and a takeover.
      await accept(chatbot, { at: START + 1 });
      await storage().setHumanTakeover({ chatbotId: chatbot.id, sessionId: "session-1", humanTakeover: true, newConversationId: context.nextId(), at: START + 2, events: () => [] });
      const result = await accept(chatbot, { at: START + 3, conversation: read });
      expect(result.conversation).toMatchObject({ id: read!.id, messageCount: 3, humanTakeover: true, updatedAt: START + 3 });
      expect(result.conversation).toEqual(await storage().findConversation(chatbot.id, "session-1"));
      expect(result.conversationCreated).toBe(false);
      expect(result.history.map((message) => message.createdAt)).toEqual([START, START + 1]);
      expect(result.events.map((event) => [event.type, (event.data as { human_takeover?: boolean }).human_takeover])).toEqual([["message.received", true]]);
      const outbox = await storage().listOutboxEvents({ limit: 100 });
      expect(outbox.filter((event) => event.id === result.events[0]!.id)).toEqual(result.events);
      // A conversation read as missing that exists since is found, not created again.
      const again = await accept(chatbot, { at: START + 4, conversation: null });
      expect(again.conversation).toMatchObject({ id: read!.id, messageCount: 4 });
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(4);
    });

    test("12 concurrent messages into one conversation as read, with 8 left, accept exactly 8, each with the messages before it as history", async () => {
      const chatbot = await seed();
      for (let count = 0; count < 2; count += 1) await accept(chatbot, { monthlyLimit: 10, at: START + count });
      const read = await storage().findConversation(chatbot.id, "session-1");
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, index) => storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 10, historyLimit: 20, conversation: read, at: START + 10 + index }))),
      );
      const accepted = results.filter((result) => result.accepted);
      expect(accepted).toHaveLength(8);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(10);
      expect(results.filter((result) => !result.accepted)).toEqual(Array.from({ length: 4 }, () => ({ accepted: false, used: 10 })));
      const stored = await storage().listMessages(read!.id);
      expect(stored).toHaveLength(10);
      expect(await storage().findConversation(chatbot.id, "session-1")).toMatchObject({ messageCount: 10 });
      for (const result of accepted) {
        const place = stored.findIndex((message) => message.id === result.message.id);
        expect(result.history.map((message) => message.id)).toEqual(stored.slice(0, place).map((message) => message.id));
        expect(result.conversation.messageCount).toBe(place + 1);
      }
      const received = (await storage().listOutboxEvents({ limit: 100 })).filter((event) => event.type === "message.received");
      expect(received).toHaveLength(10);
    });

    test("25 concurrent messages with 10 left accept exactly 10", async () => {
      const chatbot = await seed();
      for (let count = 0; count < 5; count += 1) await accept(chatbot, { monthlyLimit: 15, sessionId: "warm-up", at: START + count });
      const results = await Promise.all(
        Array.from({ length: 25 }, (_, index) =>
          storage().acceptUserMessage(acceptInput(context, chatbot, { monthlyLimit: 15, sessionId: `session-${index % 5}`, at: START + 100 + index })),
        ),
      );
      const accepted = results.filter((result) => result.accepted);
      expect(accepted).toHaveLength(10);
      expect(results.filter((result) => !result.accepted)).toEqual(Array.from({ length: 15 }, () => ({ accepted: false, used: 15 })));
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(15);
      // One conversation per session, created exactly once, holding exactly its accepted messages.
      const sessions = new Set(accepted.map((result) => result.conversation.sessionId));
      expect(accepted.filter((result) => result.conversationCreated)).toHaveLength(sessions.size);
      let stored = 0;
      for (const sessionId of sessions) {
        const conversation = await storage().findConversation(chatbot.id, sessionId);
        expect(new Set(accepted.filter((result) => result.conversation.sessionId === sessionId).map((result) => result.conversation.id))).toEqual(new Set([conversation?.id]));
        stored += (await storage().listMessages(conversation!.id)).length;
      }
      expect(stored).toBe(10);
      const received = (await storage().listOutboxEvents({ limit: 100 })).filter((event) => event.type === "message.received");
      expect(received).toHaveLength(15);
    });
  });
}
