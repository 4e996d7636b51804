import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptedFacts, AcceptUserMessage } from "../ports/storage.js";
import {
  MONTH,
  START,
  acceptInput,
  acceptMessage,
  expectAccepted,
  seedChatbot,
  seedOwnedChatbot,
  standardEvents,
  uuidOf,
  type ContractContext,
  type RegisterTest,
} from "./storage-contract-fixtures.js";

/** acceptUserMessage: conversations, history, events and atomicity. */
export function registerConversationTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const seed = () => seedOwnedChatbot(context);
  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);

  describe("acceptUserMessage", () => {
    test("the first message creates the conversation, stores the message and writes both events", async () => {
      const chatbot = await seed();
      const input = acceptInput(context, chatbot, { content: "Where is my order?", at: START + 50 });
      const result = expectAccepted(await storage().acceptUserMessage(input));
      const conversation = {
        id: input.newConversationId, chatbotId: chatbot.id, sessionId: "session-1", humanTakeover: false,
        needsAttention: false, attentionReason: null, messageCount: 1, createdAt: START + 50, updatedAt: START + 50,
      };
      const message = { id: input.messageId, conversationId: conversation.id, role: "user", author: "end_user", content: "Where is my order?", agentName: null, createdAt: START + 50, sources: [], feedback: null };
      expect(result).toMatchObject({ conversation, conversationCreated: true, message, history: [] });
      expect(result.events.map((event) => [event.id, event.type])).toEqual([
        [input.eventIds[0], "conversation.started"],
        [input.eventIds[1], "message.received"],
      ]);
      // The outbox holds exactly the returned events, field for field.
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(result.events);
      expect(await storage().findConversation(chatbot.id, "session-1")).toEqual(conversation);
      expect(await storage().listMessages(conversation.id)).toEqual([message]);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
    });

    test("later messages reuse the conversation of (chatbot, session) and write only message.received", async () => {
      const chatbot = await seed();
      const first = await accept(chatbot);
      const input = acceptInput(context, chatbot, { at: START + 1 });
      const second = expectAccepted(await storage().acceptUserMessage(input));
      expect(second.conversation).toEqual({ ...first.conversation, messageCount: 2, updatedAt: START + 1 });
      expect(second.conversationCreated).toBe(false);
      expect(second.events.map((event) => event.type)).toEqual(["message.received"]);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(2);
      // The unused newConversationId must not have created anything.
      expect(await storage().listMessages(input.newConversationId)).toEqual([]);
      expect(await storage().listOutboxEvents({ limit: 10 })).toHaveLength(3);
    });

    test("another session or another chatbot gets its own conversation", async () => {
      const chatbot = await seed();
      const sibling = await seedChatbot(context, chatbot.ownerId);
      const first = await accept(chatbot, { sessionId: "alpha" });
      const otherSession = await accept(chatbot, { sessionId: "beta" });
      const otherChatbot = await accept(sibling, { sessionId: "alpha" });
      expect(otherSession.conversationCreated && otherChatbot.conversationCreated).toBe(true);
      expect(new Set([first.conversation.id, otherSession.conversation.id, otherChatbot.conversation.id]).size).toBe(3);
      expect(otherSession.history).toEqual([]);
      expect(otherChatbot.history).toEqual([]);
    });

    test("history is the historyLimit most recent messages before the current one, oldest first", async () => {
      const chatbot = await seed();
      let conversationId = "";
      // Twelve exchanges: user and assistant messages alternate, 24 in all.
      for (let turn = 1; turn <= 12; turn += 1) {
        const result = await accept(chatbot, { content: `question ${turn}`, at: START + turn * 10 });
        conversationId = result.conversation.id;
        await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: `answer ${turn}`, author: "model", at: START + turn * 10 + 1, needsAttention: false, events: () => [] });
      }
      const current = await accept(chatbot, { content: "question 13", at: START + 130, historyLimit: 10 });
      expect(current.history.map((message) => message.content)).toEqual([
        "question 8", "answer 8", "question 9", "answer 9", "question 10",
        "answer 10", "question 11", "answer 11", "question 12", "answer 12",
      ]);
      expect(current.history.at(-1)).toMatchObject({ role: "assistant", author: "model", conversationId });
    });

    test("a historyLimit of 0 returns no history", async () => {
      const chatbot = await seed();
      await accept(chatbot, { content: "one" });
      expect((await accept(chatbot, { content: "two", historyLimit: 0 })).history).toEqual([]);
    });

    test("messages with equal timestamps keep their insertion order", async () => {
      const chatbot = await seed();
      const contents = ["first", "second", "third", "fourth"];
      let conversationId = "";
      // Ids count down, so neither time nor id order can stand in for insertion order.
      for (const [index, content] of contents.entries()) {
        conversationId = (await accept(chatbot, { content, at: START, messageId: uuidOf(800 - index) })).conversation.id;
      }
      await storage().appendAssistantMessage({ id: uuidOf(700), conversationId, content: "fifth", author: "agent", at: START, needsAttention: false, events: () => [] }).then((stored) => stored.message);
      expect((await storage().listMessages(conversationId)).map((message) => message.content)).toEqual([...contents, "fifth"]);
      expect((await accept(chatbot, { content: "sixth", at: START, historyLimit: 3 })).history.map((message) => message.content)).toEqual([
        "third", "fourth", "fifth",
      ]);
    });

    test("the events builder gets the facts the step decided, and its events are returned and written", async () => {
      const chatbot = await seed();
      const seen: AcceptedFacts[] = [];
      const record = (eventIds: [string, string]) => (facts: AcceptedFacts) => {
        seen.push(structuredClone(facts));
        return standardEvents(chatbot.ownerId, eventIds)(facts);
      };
      const firstIds: [string, string] = [context.nextId(), context.nextId()];
      const first = await accept(chatbot, { eventIds: firstIds, events: record(firstIds) });
      const secondIds: [string, string] = [context.nextId(), context.nextId()];
      const second = await accept(chatbot, { eventIds: secondIds, events: record(secondIds), at: START + 1 });
      expect(seen).toEqual([
        { conversation: first.conversation, conversationCreated: true, message: first.message },
        { conversation: second.conversation, conversationCreated: false, message: second.message },
      ]);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual([...first.events, ...second.events]);
    });

    test("a message during a takeover shows the flag in the result, to the builder and in the event", async () => {
      const chatbot = await seed();
      await storage().setHumanTakeover({
        chatbotId: chatbot.id, sessionId: "session-1", humanTakeover: true, newConversationId: context.nextId(),
        events: () => [], at: START,
      });
      const flags: boolean[] = [];
      const eventIds: [string, string] = [context.nextId(), context.nextId()];
      const result = await accept(chatbot, {
        eventIds,
        events: (facts) => {
          flags.push(facts.conversation.humanTakeover);
          return standardEvents(chatbot.ownerId, eventIds)(facts);
        },
      });
      expect(result.conversation.humanTakeover).toBe(true);
      expect(result.conversationCreated).toBe(false);
      expect(flags).toEqual([true]);
      const [received] = await storage().listOutboxEvents({ limit: 10 });
      expect(received).toMatchObject({ type: "message.received", data: { human_takeover: true } });
      // A takeover message still counts toward the quota.
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
    });

    test("an events builder that throws leaves nothing written", async () => {
      const chatbot = await seed();
      const failing = () => {
        throw new Error("builder failed");
      };
      // On a new conversation: no conversation, no message, no usage, no event.
      await expect(storage().acceptUserMessage(acceptInput(context, chatbot, { events: failing }))).rejects.toThrow("builder failed");
      expect(await storage().findConversation(chatbot.id, "session-1")).toBeNull();
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(0);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual([]);
      // On an existing conversation: the earlier message, count and events are all that remain.
      const first = await accept(chatbot);
      expect(first).toMatchObject({ conversationCreated: true });
      await expect(storage().acceptUserMessage(acceptInput(context, chatbot, { events: failing, at: START + 1 }))).rejects.toThrow("builder failed");
      expect(await storage().listMessages(first.conversation.id)).toEqual([first.message]);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(first.events);
    });
  });
}
