import { describe, expect } from "vitest";
import { DEFAULT_WIDGET_SETTINGS, type WidgetSettings } from "../domain/widget.js";
import type { Chatbot } from "../domain/chatbot.js";
import type { FeedbackRating } from "../domain/conversation.js";
import type { AcceptUserMessage } from "../ports/storage.js";
import { messageRated, messageSent } from "../events/outbox-events.js";
import { START, acceptMessage, seedChatbot, seedUser, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

/** The chat widget (docs/design.md §14): its settings and secret nonce stored with the chatbot; feedback on replies. */
export function registerWidgetTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();

  describe("widget", () => {
    test("a chatbot's widget is off by default, and changed settings and secret nonce round-trip", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id);
      expect(chatbot.widget).toEqual(DEFAULT_WIDGET_SETTINGS);
      expect(chatbot.widgetSecretNonce).toBeNull();
      expect((await storage().getChatbot(chatbot.id))!.widget.enabled).toBe(false);

      const widget: WidgetSettings = {
        enabled: true,
        allowed_origins: ["https://shop.example.com", "http://localhost:8080"],
        title: "Kettle \u0000help",
        welcome_message: "Hello!\nAsk me anything.",
        starter_questions: ["How do I descale it?", "Is it \"dishwasher\" safe?"],
        accent_color: "#0f766e",
        position: "left",
        identity_required: true,
      };
      const updated = await storage().updateChatbot(chatbot.id, { widget, widgetSecretNonce: "a1b2c3", updatedAt: START + 5 });
      expect(updated).toMatchObject({ widget, widgetSecretNonce: "a1b2c3", updatedAt: START + 5, name: chatbot.name });
      const read = (await storage().getChatbot(chatbot.id))!;
      expect(read.widget).toEqual(widget);
      expect(read.widgetSecretNonce).toBe("a1b2c3");
      expect((await storage().listChatbots(owner.id))[0]!.widget).toEqual(widget);
      // A chat reads the chatbot in its own way; the widget comes with it.
      const state = await storage().readChatState({ userId: owner.id, planName: "free", month: "2026-11", chatbotId: chatbot.id, sessionId: "s" });
      expect(state.chatbot!.widget).toEqual(widget);

      // Changing another setting keeps the widget; a caller's copy is not the stored one.
      read.widget.allowed_origins.push("https://evil.example");
      await storage().updateChatbot(chatbot.id, { name: "Renamed", updatedAt: START + 6 });
      const again = (await storage().getChatbot(chatbot.id))!;
      expect(again.widget).toEqual(widget);
      expect(again.widgetSecretNonce).toBe("a1b2c3");
      await storage().updateChatbot(chatbot.id, { widgetSecretNonce: "d4e5f6", updatedAt: START + 7 });
      expect((await storage().getChatbot(chatbot.id))!.widgetSecretNonce).toBe("d4e5f6");
    });
  });

  const accept = (chatbot: Chatbot, overrides: Partial<AcceptUserMessage> = {}) => acceptMessage(context, chatbot, overrides);
  const reply = async (chatbot: Chatbot, conversationId: string, at: number, author: "model" | "agent" = "model") =>
    (
      await storage().appendAssistantMessage({
        id: context.nextId(),
        conversationId,
        content: "It ships today.",
        author,
        agentName: author === "agent" ? "Ana" : null,
        needsAttention: false,
        at,
        events: (conversation, message) => [messageSent(context.nextId(), chatbot.ownerId, conversation, message)],
      })
    ).message;
  const rate = (chatbot: Chatbot, sessionId: string, messageId: string, rating: FeedbackRating, comment: string | null, at: number) => {
    const eventId = context.nextId();
    return storage().rateMessage({
      chatbotId: chatbot.id,
      sessionId,
      messageId,
      rating,
      comment,
      at,
      events: ({ conversation, message }) => [messageRated(eventId, chatbot.ownerId, conversation, message)],
    });
  };

  describe("feedback", () => {
    test("rateMessage stores a model reply's rating with its message.rated event in one step; rating again replaces it", async () => {
      const chatbot = await seedChatbot(context, (await seedUser(context)).id);
      const { conversation } = await accept(chatbot, { sessionId: "visitor-1", at: START + 1 });
      const answer = await reply(chatbot, conversation.id, START + 2);
      expect(answer.feedback).toBeNull();
      const before = (await storage().listOutboxEvents({ limit: 100 })).length;

      const first = await rate(chatbot, "visitor-1", answer.id, "down", "Wrong \u0000 date", START + 3);
      expect(first!.message).toEqual({ ...answer, feedback: { rating: "down", comment: "Wrong \u0000 date", createdAt: START + 3 } });
      expect(first!.events).toHaveLength(1);
      expect(first!.events[0]).toMatchObject({ type: "message.rated", userId: chatbot.ownerId, chatbotId: chatbot.id, createdAt: START + 3 });
      expect(first!.events[0]!.data).toEqual({
        message_id: answer.id,
        conversation_id: conversation.id,
        chatbot_id: chatbot.id,
        session_id: "visitor-1",
        rating: "down",
        comment: "Wrong \u0000 date",
        at: expect.any(String),
      });
      const outbox = await storage().listOutboxEvents({ limit: 100 });
      expect(outbox).toHaveLength(before + 1);
      expect(outbox.at(-1)).toEqual(first!.events[0]);

      // Every read gives the rating back; the conversation's activity does not move.
      const listed = await storage().listMessages(conversation.id);
      expect(listed.map((message) => message.feedback)).toEqual([null, { rating: "down", comment: "Wrong \u0000 date", createdAt: START + 3 }]);
      const summary = (await storage().getConversation(conversation.id))!;
      expect(summary.lastMessage!.feedback).toEqual({ rating: "down", comment: "Wrong \u0000 date", createdAt: START + 3 });
      expect(summary.updatedAt).toBe(START + 2);
      expect((await storage().listMessagesAfter(conversation.id, listed[0]!.id))![0]!.feedback!.rating).toBe("down");
      // The next chat's history carries it too.
      const next = await accept(chatbot, { sessionId: "visitor-1", at: START + 4 });
      expect(next.history.at(-1)!.feedback!.rating).toBe("down");

      const again = await rate(chatbot, "visitor-1", answer.id, "up", null, START + 5);
      expect(again!.message.feedback).toEqual({ rating: "up", comment: null, createdAt: START + 5 });
      expect((await storage().listMessages(conversation.id))[1]!.feedback).toEqual({ rating: "up", comment: null, createdAt: START + 5 });
      expect((await storage().listOutboxEvents({ limit: 100 })).filter((event) => event.type === "message.rated").map((event) => event.data)).toEqual([
        expect.objectContaining({ rating: "down", comment: "Wrong \u0000 date" }),
        expect.objectContaining({ rating: "up", comment: null }),
      ]);
    });

    test("rateMessage refuses a visitor's message, an agent's reply, another session's or chatbot's reply and an unknown id, writing nothing", async () => {
      const owner = await seedUser(context);
      const chatbot = await seedChatbot(context, owner.id);
      const other = await seedChatbot(context, owner.id, { baseSlug: "other" });
      const { conversation, message: question } = await accept(chatbot, { sessionId: "visitor-1", at: START + 1 });
      const answer = await reply(chatbot, conversation.id, START + 2);
      const agent = await reply(chatbot, conversation.id, START + 3, "agent");
      await accept(chatbot, { sessionId: "visitor-2", at: START + 4 });
      await accept(other, { sessionId: "visitor-1", at: START + 5 });
      const before = await storage().listOutboxEvents({ limit: 100 });
      const refusedRate = (chatbotId: string, sessionId: string, messageId: string) =>
        storage().rateMessage({ chatbotId, sessionId, messageId, rating: "up", comment: null, at: START + 9, events: () => [messageRated(context.nextId(), owner.id, conversation, { ...answer, feedback: { rating: "up", comment: null, createdAt: START + 9 } })] });
      expect(await refusedRate(chatbot.id, "visitor-1", question.id)).toBeNull();
      expect(await refusedRate(chatbot.id, "visitor-1", agent.id)).toBeNull();
      expect(await refusedRate(chatbot.id, "visitor-2", answer.id)).toBeNull();
      expect(await refusedRate(other.id, "visitor-1", answer.id)).toBeNull();
      expect(await refusedRate(chatbot.id, "nobody", answer.id)).toBeNull();
      expect(await refusedRate(chatbot.id, "visitor-1", context.nextId())).toBeNull();
      expect(await storage().listOutboxEvents({ limit: 100 })).toEqual(before);
      expect((await storage().listMessages(conversation.id)).map((message) => message.feedback)).toEqual([null, null, null]);

      // A builder that throws leaves the rating unwritten.
      await expect(
        storage().rateMessage({ chatbotId: chatbot.id, sessionId: "visitor-1", messageId: answer.id, rating: "up", comment: null, at: START + 9, events: () => { throw new Error("no events"); } }),
      ).rejects.toThrow("no events");
      expect((await storage().listMessages(conversation.id))[1]!.feedback).toBeNull();
      expect(await storage().listOutboxEvents({ limit: 100 })).toEqual(before);
    });

    test("countFeedback counts the owner's rated replies per chatbot in the range, by their latest rating", async () => {
      const owner = await seedUser(context);
      const stranger = await seedUser(context);
      const [first, second] = [await seedChatbot(context, owner.id, { id: "00000000-0000-4000-8000-00000000aaaa" }), await seedChatbot(context, owner.id, { baseSlug: "b", id: "00000000-0000-4000-8000-00000000bbbb" })];
      const theirs = await seedChatbot(context, stranger.id);
      const rated = async (chatbot: Chatbot, session: string, rating: FeedbackRating, at: number) => {
        const { conversation } = await accept(chatbot, { sessionId: session, at: at - 2 });
        const answer = await reply(chatbot, conversation.id, at - 1);
        await rate(chatbot, session, answer.id, rating, null, at);
        return answer;
      };
      await rated(first, "a", "up", START + 10);
      await rated(first, "b", "down", START + 20);
      const changed = await rated(first, "c", "down", START + 30);
      await rate(first, "c", changed.id, "up", "better now", START + 40);
      await rated(second, "a", "down", START + 50);
      await rated(second, "b", "up", START + 1000);
      await rated(theirs, "a", "up", START + 60);
      expect(await storage().countFeedback(owner.id, { from: START, to: START + 1000 })).toEqual([
        { chatbotId: first.id, up: 2, down: 1 },
        { chatbotId: second.id, up: 0, down: 1 },
      ]);
      expect(await storage().countFeedback(owner.id, { from: START + 25, to: START + 45 })).toEqual([{ chatbotId: first.id, up: 1, down: 0 }]);
      expect(await storage().countFeedback(stranger.id, { from: START, to: START + 2000 })).toEqual([{ chatbotId: theirs.id, up: 1, down: 0 }]);
      expect(await storage().countFeedback(owner.id, { from: START + 2000, to: START + 3000 })).toEqual([]);
    });
  });
}
