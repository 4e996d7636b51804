import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import { MONTH, START, acceptMessage, seedOwnedChatbot, uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** Assistant messages, human takeover and the outbox. */
export function registerReplyTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const seed = () => seedOwnedChatbot(context);
  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);

  describe("assistant messages and takeover", () => {
    test("appendAssistantMessage stores a model's or an agent's reply after the user message", async () => {
      const chatbot = await seed();
      const question = await accept(chatbot);
      const conversationId = question.conversation.id;
      const replyId = context.nextId();
      const reply = await storage().appendAssistantMessage({ id: replyId, conversationId, content: "It ships today.", author: "model", at: START + 2 });
      expect(reply).toEqual({ id: replyId, conversationId, role: "assistant", author: "model", content: "It ships today.", createdAt: START + 2 });
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
