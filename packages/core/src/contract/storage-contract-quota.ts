import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import { MONTH, START, acceptInput, acceptMessage, seedOwnedChatbot, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

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
      expect((await accept(chatbot, { month: "2026-11", monthlyLimit: 1 })).used).toBe(1);
      expect((await accept(otherChatbot, { month: "2026-11", monthlyLimit: 1 })).used).toBe(1);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-10")).toBe(1);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(1);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, "2026-12")).toBe(0);
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
      // Every reservation saw its own count: 6 to 15, each once.
      expect(accepted.map((result) => result.used).sort((a, b) => a - b)).toEqual([6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
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
