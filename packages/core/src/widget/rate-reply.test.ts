import { describe, expect, it } from "vitest";
import { rejection, setup } from "../../test/harness.js";

describe("rateReply: a visitor's rating of a model reply", () => {
  it("stores the rating with the reply, fires message.rated, and replaces it when rated again", async () => {
    const { parley, chatbot, caller, user, outbox, published, clock } = await setup();
    const owner = await parley.chatbotOwner(chatbot.id);
    const { reply } = await parley.chat(owner, chatbot.id, { message: "When does it ship?", session_id: "visitor-1" });
    const replyId = (reply as { id: string }).id;

    const rated = await parley.rateReply(chatbot.id, "visitor-1", replyId.toUpperCase(), { rating: "down", comment: "  Too vague.  " });
    expect(rated).toEqual({ rating: "down", comment: "Too vague.", created_at: expect.stringMatching(/^2026-11-21T10:00:00\.\d{6}\+00:00$/) });
    const event = (await outbox()).at(-1)!;
    expect(event).toMatchObject({ type: "message.rated", userId: user.id, chatbotId: chatbot.id });
    expect(event.data).toEqual({
      message_id: replyId,
      conversation_id: expect.any(String),
      chatbot_id: chatbot.id,
      session_id: "visitor-1",
      rating: "down",
      comment: "Too vague.",
      at: rated.created_at,
    });
    expect(published.at(-1)).toEqual({ type: "message.rated", data: event.data });

    clock.advance(5_000);
    const again = await parley.rateReply(chatbot.id, "visitor-1", replyId, { rating: "up", comment: "" });
    expect(again).toEqual({ rating: "up", comment: null, created_at: expect.stringMatching(/^2026-11-21T10:00:05\.\d{6}\+00:00$/) });
    // The session's messages and the operator's conversation show the latest rating.
    const { data } = await parley.listSessionMessages(caller, chatbot.id, "visitor-1");
    expect(data.map((message) => message.feedback)).toEqual([null, again]);
  });

  it("refuses a bad rating or comment, naming the field, before anything is stored", async () => {
    const { parley, chatbot, outbox } = await setup();
    const owner = await parley.chatbotOwner(chatbot.id);
    const { reply } = await parley.chat(owner, chatbot.id, { message: "Hi", session_id: "visitor-1" });
    const id = (reply as { id: string }).id;
    const before = (await outbox()).length;
    for (const [input, detail] of [
      [{ rating: "meh" }, "rating: must be one of up, down"],
      [{}, "rating: must be one of up, down"],
      [{ rating: "up", comment: 5 }, "comment: must be a string"],
      [{ rating: "up", comment: "x".repeat(1001) }, "comment: must be at most 1000 characters"],
      ["up", "body: must be a JSON object"],
    ] as const) {
      expect(await rejection(parley.rateReply(chatbot.id, "visitor-1", id, input))).toMatchObject({ code: "invalid_request", detail });
    }
    expect(await parley.rateReply(chatbot.id, "visitor-1", id, { rating: "up", comment: "é".repeat(1000) })).toMatchObject({ rating: "up" });
    expect((await outbox()).length).toBe(before + 1);
  });

  it("is not_found for a visitor's message, an agent's reply, another session's reply, an unknown id and a deleted chatbot", async () => {
    const { parley, chatbot, outbox } = await setup();
    const owner = await parley.chatbotOwner(chatbot.id);
    const { message, reply } = await parley.chat(owner, chatbot.id, { message: "Hi", session_id: "visitor-1" });
    const agent = await parley.admin.replyAsAgent(chatbot.id, "visitor-1", "Sam here.");
    await parley.chat(owner, chatbot.id, { message: "Hi", session_id: "visitor-2" });
    const before = (await outbox()).length;
    const replyId = (reply as { id: string }).id;
    for (const [session, id] of [
      ["visitor-1", (message as { id: string }).id],
      ["visitor-1", agent.id],
      ["visitor-2", replyId],
      ["visitor-1", "00000000-0000-4000-8000-000000000000"],
      ["visitor-1", "not-a-uuid"],
    ] as const) {
      expect(await rejection(parley.rateReply(chatbot.id, session, id, { rating: "up" }))).toMatchObject({ code: "not_found", detail: "Message not found." });
    }
    await parley.admin.deleteChatbot(chatbot.id);
    expect(await rejection(parley.rateReply(chatbot.id, "visitor-1", replyId, { rating: "up" }))).toMatchObject({ code: "not_found", detail: "Chatbot not found." });
    expect((await outbox()).length).toBe(before);
  });
});
