import { describe, expect, it } from "vitest";
import { rejection, setup } from "../../test/harness.js";

describe("chatbotOwner: a visitor's chat without an API key", () => {
  it("chats as the chatbot's owner: the owner's quota counts the message, and the owner gets the events", async () => {
    const { parley, chatbot, storage, user, outbox } = await setup();
    const owner = await parley.chatbotOwner(chatbot.id.toUpperCase());
    expect(owner.user.id).toBe(user.id);
    const result = await parley.chat(owner, chatbot.id, { message: "hello from a visitor", session_id: "visitor-abc" });
    expect(result.reply).toMatchObject({ author: "model", content: "echo: hello from a visitor" });
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(1);
    expect((await outbox()).map((event) => [event.type, event.userId, (event.data as { session_id: string }).session_id])).toEqual([
      ["conversation.started", user.id, "visitor-abc"],
      ["message.received", user.id, "visitor-abc"],
      ["message.sent", user.id, "visitor-abc"],
    ]);
  });

  it("is not_found for a malformed id, a missing or a deleted chatbot, with the spec's text", async () => {
    const { parley, chatbot } = await setup();
    await parley.admin.deleteChatbot(chatbot.id);
    for (const id of ["not-a-uuid", "00000000-0000-4000-8000-000000000000", chatbot.id]) {
      expect(await rejection(parley.chatbotOwner(id))).toMatchObject({ code: "not_found", detail: "Chatbot not found." });
    }
  });

  it("leaves a paused chatbot to the chat itself, which refuses it as for every caller", async () => {
    const { parley, chatbot } = await setup();
    await parley.admin.pauseChatbot(chatbot.id);
    const owner = await parley.chatbotOwner(chatbot.id);
    expect(await rejection(parley.chat(owner, chatbot.id, { message: "hi", session_id: "visitor-x" }))).toMatchObject({ code: "chatbot_paused" });
  });
});
