import { describe, expect } from "vitest";
import type { Chatbot } from "../domain/chatbot.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import { messageSent } from "../events/outbox-events.js";
import { START, acceptMessage, seedChatbot, seedUser, uuidOf, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** A team of agents (docs/design.md §16): names on replies, attention reasons, read state per key, the takeover timeline. */
export function registerAgentTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();
  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);
  const reply = (chatbot: Chatbot, conversationId: string, at: number, options: { author?: "model" | "agent"; agentName?: string | null; needsAttention?: boolean } = {}) =>
    storage().appendAssistantMessage({
      id: context.nextId(),
      conversationId,
      content: "answer",
      author: options.author ?? "model",
      agentName: options.agentName,
      needsAttention: options.needsAttention ?? false,
      at,
      events: (conversation, message) => [messageSent(context.nextId(), chatbot.ownerId, conversation, message)],
    });
  const owned = async () => seedChatbot(context, (await seedUser(context)).id);
  const [ANA, BEN] = [uuidOf(5001), uuidOf(5002)];

  describe("agents", () => {
    test("an agent's reply keeps the agent's name; the model's and visitors' messages have none", async () => {
      const chatbot = await owned();
      const { conversation, message } = await accept(chatbot, { at: START + 1 });
      const agent = await reply(chatbot, conversation.id, START + 2, { author: "agent", agentName: "Ana" });
      const model = await reply(chatbot, conversation.id, START + 3, { author: "model", agentName: "Ana" });
      expect(agent.message.agentName).toBe("Ana");
      expect(agent.events[0]!.data).toMatchObject({ author: "agent", agent_name: "Ana" });
      expect(model.message.agentName).toBeNull();
      expect((await storage().listMessages(conversation.id)).map((each) => [each.author, each.agentName])).toEqual([
        ["end_user", null],
        ["agent", "Ana"],
        ["model", null],
      ]);
      expect(message.agentName).toBeNull();
      expect((await storage().getConversation(conversation.id))!.lastMessage!.agentName).toBeNull();
      await reply(chatbot, conversation.id, START + 4, { author: "agent", agentName: "Ben" });
      expect((await storage().getConversation(conversation.id))!.lastMessage!.agentName).toBe("Ben");
    });

    test("attention keeps its reason: fallback, provider_failed, and none once answered", async () => {
      const chatbot = await owned();
      const { conversation } = await accept(chatbot, { at: START + 1 });
      expect(conversation.attentionReason).toBeNull();
      await reply(chatbot, conversation.id, START + 2, { needsAttention: true });
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: true, attentionReason: "fallback" });
      // A visitor writing again after the fallback does not clear it.
      await accept(chatbot, { at: START + 3 });
      expect(await storage().findConversation(chatbot.id, conversation.sessionId)).toMatchObject({ needsAttention: true, attentionReason: "fallback" });
      await reply(chatbot, conversation.id, START + 4);
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: false, attentionReason: null });
      await accept(chatbot, { at: START + 5 });
      await storage().markNeedsAttention(conversation.id, START + 6);
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: true, attentionReason: "provider_failed" });
      const listed = await storage().listConversations({ ownerId: chatbot.ownerId, status: "attention", limit: 10 });
      expect(listed.map((each) => each.attentionReason)).toEqual(["provider_failed"]);
      await reply(chatbot, conversation.id, START + 7, { author: "agent", agentName: "Ana" });
      expect(await storage().getConversation(conversation.id)).toMatchObject({ needsAttention: false, attentionReason: null });
    });

    test("a visitor message left unanswered since before the cut-off marks its conversation provider_failed, unless an agent has had it since", async () => {
      const chatbot = await owned();
      const cut = { before: START + 10, at: START + 20 };
      const session = (sessionId: string, at: number) => accept(chatbot, { sessionId, at });
      const takeover = (sessionId: string, humanTakeover: boolean, at: number) =>
        storage().setHumanTakeover({ chatbotId: chatbot.id, sessionId, humanTakeover, by: "Ana", newConversationId: context.nextId(), at, events: () => [] });
      const cutOff = (await session("cut-off", START + 1)).conversation;
      const answered = (await session("answered", START + 1)).conversation;
      await reply(chatbot, answered.id, START + 2);
      const recent = (await session("recent", START + 10)).conversation;
      const takenOver = (await session("taken-over", START + 1)).conversation;
      await takeover("taken-over", true, START + 2);
      const handedBack = (await session("handed-back", START + 1)).conversation;
      await takeover("handed-back", true, START + 2);
      await takeover("handed-back", false, START + 3);
      const fallback = (await session("fallback", START + 1)).conversation;
      await reply(chatbot, fallback.id, START + 2, { needsAttention: true });
      await session("fallback", START + 3);

      expect(await storage().markUnansweredConversations(cut)).toBe(1);
      expect(await storage().getConversation(cutOff.id)).toMatchObject({ needsAttention: true, attentionReason: "provider_failed", updatedAt: START + 20 });
      for (const other of [answered, recent, takenOver, handedBack]) expect(await storage().getConversation(other.id)).toMatchObject({ needsAttention: false, attentionReason: null });
      expect(await storage().getConversation(fallback.id)).toMatchObject({ needsAttention: true, attentionReason: "fallback", updatedAt: START + 3 });
      // Marked once: the next sweep finds nothing, and a reply clears the mark as any other.
      expect(await storage().markUnansweredConversations(cut)).toBe(0);
      await reply(chatbot, cutOff.id, START + 21);
      expect(await storage().getConversation(cutOff.id)).toMatchObject({ needsAttention: false, attentionReason: null });
      // A later cut-off reaches the recent one, and only it.
      expect(await storage().markUnansweredConversations({ before: START + 30, at: START + 30 })).toBe(1);
      expect(await storage().getConversation(recent.id)).toMatchObject({ needsAttention: true, attentionReason: "provider_failed" });
      expect(await storage().getConversation(cutOff.id)).toMatchObject({ needsAttention: false });
    });

    test("read state is per key, counts visitor messages after the last read one, and never moves back", async () => {
      const chatbot = await owned();
      const first = await accept(chatbot, { at: START + 1 });
      const id = first.conversation.id;
      const answer = await reply(chatbot, id, START + 2);
      const second = await accept(chatbot, { at: START + 3 });
      const other = await accept(chatbot, { sessionId: "other", at: START + 4 });
      expect(await storage().countUnread(ANA, [id, other.conversation.id])).toEqual({ [id]: 2, [other.conversation.id]: 1 });
      // The model's reply is not a visitor message: reading up to it leaves the visitor's later one unread.
      expect(await storage().markConversationRead({ apiKeyId: ANA, conversationId: id, upToMessageId: answer.message.id, at: START + 5 })).toBe(true);
      expect(await storage().countUnread(ANA, [id])).toEqual({ [id]: 1 });
      expect(await storage().countUnread(BEN, [id])).toEqual({ [id]: 2 });
      expect(await storage().markConversationRead({ apiKeyId: ANA, conversationId: id, upToMessageId: second.message.id, at: START + 6 })).toBe(true);
      expect(await storage().countUnread(ANA, [id])).toEqual({ [id]: 0 });
      // Reporting an earlier message later (another tab) does not make anything unread again.
      expect(await storage().markConversationRead({ apiKeyId: ANA, conversationId: id, upToMessageId: first.message.id, at: START + 7 })).toBe(true);
      expect(await storage().countUnread(ANA, [id])).toEqual({ [id]: 0 });
      await accept(chatbot, { at: START + 8 });
      expect(await storage().countUnread(ANA, [id])).toEqual({ [id]: 1 });
      // A message of another conversation, or none at all, is refused and changes nothing.
      expect(await storage().markConversationRead({ apiKeyId: BEN, conversationId: id, upToMessageId: other.message.id, at: START + 9 })).toBe(false);
      expect(await storage().markConversationRead({ apiKeyId: BEN, conversationId: id, upToMessageId: uuidOf(999), at: START + 9 })).toBe(false);
      expect(await storage().countUnread(BEN, [id])).toEqual({ [id]: 3 });
      expect(await storage().countUnread(ANA, [])).toEqual({});
    });

    test("listConversations with unreadFor lists only those with visitor messages that key has not read", async () => {
      const chatbot = await owned();
      const a = await accept(chatbot, { sessionId: "a", at: START + 1 });
      const b = await accept(chatbot, { sessionId: "b", at: START + 2 });
      await storage().setHumanTakeover({ chatbotId: chatbot.id, sessionId: "c", humanTakeover: true, newConversationId: uuidOf(900), at: START + 3, events: () => [] });
      const unread = async (apiKeyId: string) =>
        (await storage().listConversations({ ownerId: chatbot.ownerId, unreadFor: apiKeyId, limit: 10 })).map((conversation) => conversation.sessionId);
      // "c" has no message at all: nothing to read.
      expect(await unread(ANA)).toEqual(["b", "a"]);
      await storage().markConversationRead({ apiKeyId: ANA, conversationId: b.conversation.id, upToMessageId: b.message.id, at: START + 4 });
      expect(await unread(ANA)).toEqual(["a"]);
      expect(await unread(BEN)).toEqual(["b", "a"]);
      await storage().markConversationRead({ apiKeyId: ANA, conversationId: a.conversation.id, upToMessageId: a.message.id, at: START + 5 });
      expect(await unread(ANA)).toEqual([]);
      expect(await storage().listConversations({ ownerId: chatbot.ownerId, limit: 10 })).toHaveLength(3);
    });

    test("a takeover change is kept on the timeline with who and when; setting the same flag adds nothing", async () => {
      const chatbot = await owned();
      const take = (humanTakeover: boolean, at: number, by?: string | null) =>
        storage().setHumanTakeover({ chatbotId: chatbot.id, sessionId: "s", humanTakeover, by, newConversationId: uuidOf(901), at, events: () => [] });
      const { conversation } = await take(true, START + 1, "Ana");
      await take(true, START + 2, "Ben");
      await take(false, START + 3, "Ben");
      await take(true, START + 4);
      const quiet = (await take(false, START + 5, null)).conversation;
      const untouched = (await accept(chatbot, { sessionId: "t", at: START + 6 })).conversation;
      expect(await storage().listConversationEvents([conversation.id, untouched.id])).toEqual({
        [conversation.id]: [
          { type: "takeover_started", by: "Ana", at: START + 1 },
          { type: "takeover_ended", by: "Ben", at: START + 3 },
          { type: "takeover_started", by: null, at: START + 4 },
          { type: "takeover_ended", by: null, at: START + 5 },
        ],
        [untouched.id]: [],
      });
      expect(quiet.id).toBe(conversation.id);
    });
  });
}
