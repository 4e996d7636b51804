import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import type { Conversation } from "../domain/conversation.js";
import { conversationStarted, messageSent, takeoverChanged } from "../events/outbox-events.js";
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
      const reply = await storage().appendAssistantMessage({ id: replyId, conversationId, content: "It ships today.", author: "model", at: START + 2, needsAttention: false, events: () => [] }).then((stored) => stored.message);
      expect(reply).toEqual({ id: replyId, conversationId, role: "assistant", author: "model", content: "It ships today.", agentName: null, createdAt: START + 2, sources: [], feedback: null });
      const agentReply = await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: "Agent here.", author: "agent", at: START + 3, needsAttention: false, events: () => [] }).then((stored) => stored.message);
      expect(await storage().listMessages(conversationId)).toEqual([question.message, reply, agentReply]);
      expect(await storage().listMessages(uuidOf(999))).toEqual([]);
      // Replies are not user messages: they never count toward the quota.
      expect(await storage().getMonthlyUsage(chatbot.ownerId, MONTH)).toBe(1);
    });

    test("appendAssistantMessage stores a reply's sources with it, and every read gives them back in order", async () => {
      const chatbot = await seed();
      const question = await accept(chatbot);
      const conversationId = question.conversation.id;
      const sources = [
        { documentId: uuidOf(701), title: "Manual — \"quoted\" ünïcode", source: "docs/manual.pdf", page: 12 },
        { documentId: uuidOf(702), title: "FAQ", source: "https://acme.test/faq?x=1&y=2", page: null },
      ];
      const reply = await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: "See the manual.", author: "model", sources, at: START + 2, needsAttention: false, events: () => [] }).then((stored) => stored.message);
      expect(reply.sources).toEqual(sources);
      expect(await storage().listMessages(conversationId)).toEqual([question.message, reply]);
      expect(await storage().listMessagesAfter(conversationId, question.message.id)).toEqual([reply]);
      expect((await storage().getConversation(conversationId))?.lastMessage).toEqual(reply);
      // The next message's history carries the reply with its sources; the user message has none.
      const next = await accept(chatbot, { at: START + 3 });
      expect(next.history).toEqual([question.message, reply]);
      expect(next.message.sources).toEqual([]);
      // An agent's reply without sources stores none.
      const agent = await storage().appendAssistantMessage({ id: context.nextId(), conversationId, content: "Agent.", author: "agent", at: START + 4, needsAttention: false, events: () => [] });
      expect(agent.message.sources).toEqual([]);
    });

    test("appendAssistantMessage builds its events from the stored conversation, whatever conversation the caller passes", async () => {
      const chatbot = await seed();
      const question = await accept(chatbot);
      const stale = question.conversation;
      // The conversation changes after the caller read it: a takeover and another message.
      await storage().setHumanTakeover({ chatbotId: chatbot.id, sessionId: stale.sessionId, humanTakeover: true, newConversationId: context.nextId(), at: START + 2, events: () => [] });
      await accept(chatbot, { at: START + 3 });
      const seen: Conversation[] = [];
      const reply = await storage().appendAssistantMessage({
        id: context.nextId(), conversationId: stale.id, content: "Fallback.", author: "model", at: START + 4, needsAttention: true, conversation: stale,
        events: (conversation, message) => (seen.push(conversation), [messageSent(uuidOf(503), chatbot.ownerId, conversation, message)]),
      });
      const stored = await storage().findConversation(chatbot.id, stale.sessionId);
      expect(stored).toMatchObject({ messageCount: 3, humanTakeover: true, needsAttention: true, attentionReason: "fallback", updatedAt: START + 4 });
      // The builder saw the conversation as stored after the reply, and its event is in the outbox once.
      expect(seen.at(-1)).toEqual(stored);
      expect(reply.events.map((event) => event.id)).toEqual([uuidOf(503)]);
      const outbox = await storage().listOutboxEvents({ limit: 100 });
      expect(outbox.filter((event) => event.id === uuidOf(503))).toHaveLength(1);
      expect(await storage().listMessages(stale.id)).toHaveLength(3);
    });

    test("setHumanTakeover on a new session creates the conversation with its events", async () => {
      const chatbot = await seed();
      const newConversationId = context.nextId();
      const seen: { created: boolean; changed: boolean }[] = [];
      const result = await storage().setHumanTakeover({
        chatbotId: chatbot.id, sessionId: "visitor-7", humanTakeover: true, newConversationId, at: START + 9,
        events: ({ conversation, created, changed }) => {
          seen.push({ created, changed });
          return [conversationStarted(uuidOf(501), chatbot.ownerId, conversation), takeoverChanged(uuidOf(502), chatbot.ownerId, conversation, true, START + 9)];
        },
      });
      const conversation = {
        id: newConversationId, chatbotId: chatbot.id, sessionId: "visitor-7", humanTakeover: true,
        needsAttention: false, attentionReason: null, messageCount: 0, createdAt: START + 9, updatedAt: START + 9,
      };
      expect(seen).toEqual([{ created: true, changed: true }]);
      expect(result).toMatchObject({ conversation, created: true, changed: true });
      expect(result.events.map((event) => [event.id, event.type])).toEqual([[uuidOf(501), "conversation.started"], [uuidOf(502), "conversation.takeover_started"]]);
      expect(await storage().listOutboxEvents({ limit: 10 })).toEqual(result.events);
      expect(await storage().findConversation(chatbot.id, "visitor-7")).toEqual(conversation);
    });

    test("setHumanTakeover toggles an existing conversation, telling the builder whether the flag changed", async () => {
      const chatbot = await seed();
      const first = await accept(chatbot);
      const toggle = (humanTakeover: boolean, at: number) =>
        storage().setHumanTakeover({
          chatbotId: chatbot.id, sessionId: "session-1", humanTakeover, newConversationId: context.nextId(), at,
          events: ({ conversation, created, changed }) => (changed && !created ? [takeoverChanged(context.nextId(), chatbot.ownerId, conversation, humanTakeover, at)] : []),
        });
      const on = await toggle(true, START + 5);
      expect(on).toMatchObject({ conversation: { ...first.conversation, humanTakeover: true, updatedAt: START + 5 }, created: false, changed: true });
      expect(on.events.map((event) => event.type)).toEqual(["conversation.takeover_started"]);
      // Setting what is already set changes nothing, not even the activity time.
      expect(await toggle(true, START + 6)).toEqual({ conversation: { ...first.conversation, humanTakeover: true, updatedAt: START + 5 }, created: false, changed: false, events: [] });
      const off = await toggle(false, START + 7);
      expect(off).toMatchObject({ conversation: { ...first.conversation, updatedAt: START + 7 }, changed: true });
      expect(await storage().findConversation(chatbot.id, "session-1")).toEqual({ ...first.conversation, updatedAt: START + 7 });
      expect((await storage().listOutboxEvents({ limit: 10 })).map((event) => event.type)).toEqual([
        "conversation.started", "message.received", "conversation.takeover_started", "conversation.takeover_ended",
      ]);
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
}
