import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptedFacts } from "../ports/storage.js";
import {
  MONTH,
  START,
  acceptInput,
  expectAccepted,
  seedChatbot,
  seedUser,
  standardEvents,
  uuidOf,
  type ContractContext,
  type RegisterTest,
} from "./storage-contract-fixtures.js";

/** Quota, conversations, messages, takeover and the outbox. */
export function registerConversationTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const seed = async (): Promise<Chatbot> => seedChatbot(context, (await seedUser(context)).id);
  /** Accepts one message and returns the accepted result. */
  const accept = async (chatbot: Chatbot, overrides: Parameters<typeof acceptInput>[2] = {}) =>
    expectAccepted(await storage().acceptUserMessage(acceptInput(context, chatbot, overrides)));

  describe("acceptUserMessage", () => {
    test("the first message creates the conversation, stores the message and writes both events", async () => {
      const chatbot = await seed();
      const input = acceptInput(context, chatbot, { content: "Where is my order?", at: START + 50 });
      const result = expectAccepted(await storage().acceptUserMessage(input));
      const conversation = { id: input.newConversationId, chatbotId: chatbot.id, sessionId: "session-1", humanTakeover: false, createdAt: START + 50 };
      const message = { id: input.messageId, conversationId: conversation.id, role: "user", author: "end_user", content: "Where is my order?", createdAt: START + 50 };
      expect(result).toMatchObject({ conversation, conversationCreated: true, message, history: [], used: 1 });
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
      expect(second.conversation).toEqual(first.conversation);
      expect(second.conversationCreated).toBe(false);
      expect(second.events.map((event) => event.type)).toEqual(["message.received"]);
      expect(second.used).toBe(2);
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
        await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: `answer ${turn}`, author: "model", at: START + turn * 10 + 1 });
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
      await storage().appendAssistantMessage({ id: uuidOf(700), conversationId, content: "fifth", author: "agent", at: START });
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
      expect(result.used).toBe(1);
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
      expect(first).toMatchObject({ conversationCreated: true, used: 1 });
      await expect(storage().acceptUserMessage(acceptInput(context, chatbot, { events: failing, at: START + 1 }))).rejects.toThrow("builder failed");
      expect(await storage().listMessages(first.conversation.id)).toEqual([first.message]);
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(first.events);
    });
  });

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

  describe("assistant messages and takeover", () => {
    test("appendAssistantMessage stores a model's or an agent's reply after the user message", async () => {
      const chatbot = await seed();
      const question = await accept(chatbot);
      const conversationId = question.conversation.id;
      const reply = await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: "It ships today.", author: "model", at: START + 2 });
      expect(reply).toEqual({ id: reply.id, conversationId, role: "assistant", author: "model", content: "It ships today.", createdAt: START + 2 });
      const agentReply = await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: "Agent here.", author: "agent", at: START + 3 });
      expect(await storage().listMessages(conversationId)).toEqual([question.message, reply, agentReply]);
      expect(await storage().listMessages(uuidOf(999))).toEqual([]);
      // Replies are not user messages: they never count toward the quota.
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
    });

    test("setHumanTakeover on a new session creates the conversation with its events", async () => {
      const chatbot = await seed();
      const newConversationId = context.nextId();
      const eventId = context.nextId();
      const result = await storage().setHumanTakeover({
        chatbotId: chatbot.id, sessionId: "visitor-7", humanTakeover: true, newConversationId, at: START + 9,
        events: (conversation) => [
          {
            id: eventId, type: "conversation.started", userId: chatbot.ownerId, chatbotId: chatbot.id, createdAt: conversation.createdAt,
            data: { conversation_id: conversation.id, chatbot_id: chatbot.id, session_id: conversation.sessionId, created_at: "2026-11-21T10:00:00.000009+00:00" },
          },
        ],
      });
      const conversation = { id: newConversationId, chatbotId: chatbot.id, sessionId: "visitor-7", humanTakeover: true, createdAt: START + 9 };
      expect(result.conversation).toEqual(conversation);
      expect(result.created).toBe(true);
      expect(result.events.map((event) => event.id)).toEqual([eventId]);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(result.events);
      expect(await storage().findConversation(chatbot.id, "visitor-7")).toEqual(conversation);
    });

    test("setHumanTakeover toggles an existing conversation without writing events", async () => {
      const chatbot = await seed();
      const first = await accept(chatbot);
      const toggle = (humanTakeover: boolean) =>
        storage().setHumanTakeover({
          chatbotId: chatbot.id, sessionId: "session-1", humanTakeover, newConversationId: context.nextId(), at: START + 5,
          events: takeoverStartedEvents(chatbot),
        });
      expect(await toggle(true)).toEqual({ conversation: { ...first.conversation, humanTakeover: true }, created: false, events: [] });
      expect((await storage().findConversation(chatbot.id, "session-1"))?.humanTakeover).toBe(true);
      expect(await toggle(false)).toEqual({ conversation: first.conversation, created: false, events: [] });
      expect(await storage().findConversation(chatbot.id, "session-1")).toEqual(first.conversation);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(first.events);
    });

    test("findConversation returns null for an unknown session", async () => {
      const chatbot = await seed();
      await accept(chatbot, { sessionId: "known" });
      expect(await storage().findConversation(chatbot.id, "unknown")).toBeNull();
    });
  });

  describe("outbox", () => {
    test("listOutboxEvents returns the oldest events first, at most limit", async () => {
      const chatbot = await seed();
      // Written in this order, with event ids counting down and the second one stamped
      // earliest (a clock step back), so only the write order gives the expected list.
      const first = await accept(chatbot, { sessionId: "alpha", eventIds: [uuidOf(909), uuidOf(908)] });
      const second = await accept(chatbot, { sessionId: "beta", eventIds: [uuidOf(907), uuidOf(906)], at: START - 10 });
      const third = await accept(chatbot, { sessionId: "alpha", eventIds: [uuidOf(905), uuidOf(904)], at: START + 2 });
      const all = [...first.events, ...second.events, ...third.events];
      expect(all).toHaveLength(5);
      expect(await storage().listOutboxEvents({ limit: 100 })).toEqual(all);
      expect(await storage().listOutboxEvents({ limit: 2 })).toEqual(all.slice(0, 2));
    });
  });

  /** A takeover events builder that always returns an event, so a wrongly used one shows. */
  function takeoverStartedEvents(chatbot: Chatbot) {
    return (conversation: { id: string; sessionId: string; createdAt: number }) => [
      {
        id: context.nextId(), type: "conversation.started" as const, userId: chatbot.ownerId, chatbotId: chatbot.id, createdAt: conversation.createdAt,
        data: { conversation_id: conversation.id, chatbot_id: chatbot.id, session_id: conversation.sessionId, created_at: "2026-11-21T10:00:00.000005+00:00" },
      },
    ];
  }
}
