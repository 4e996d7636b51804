import { describe, expect, it } from "vitest";
import { rejection, setup } from "../../test/harness.js";
import { slugify } from "./slugify.js";
import { formatTimestamp } from "../support/time.js";

describe("listChatbots and getChatbot", () => {
  it("lists exactly the spec's fields, newest first, without deleted or other users' chatbots", async () => {
    const { parley, caller, chatbot, clock, user } = await setup();
    clock.advance(1000);
    const newer = await parley.admin.createChatbot({ userId: user.id, name: "Newer", provider: "anthropic", model: "claude-test" });
    const deleted = await parley.admin.createChatbot({ userId: user.id, name: "Deleted", provider: "openai", model: "m" });
    await parley.admin.deleteChatbot(deleted.id);
    const other = await parley.admin.createUser({ email: "other@example.com" });
    await parley.admin.createChatbot({ userId: other.id, name: "Not mine", provider: "openai", model: "m" });
    await parley.admin.pauseChatbot(newer.id);

    const list = await parley.listChatbots(caller);
    expect(list.map((bot) => bot.id)).toEqual([newer.id, chatbot.id]);
    expect(Object.keys(list[0]!)).toEqual(["id", "name", "slug", "provider", "is_active", "created_at"]);
    expect(list[0]).toMatchObject({ name: "Newer", slug: "newer", provider: "anthropic", is_active: false });
    expect(list[1]!.created_at).toMatch(/^2026-11-21T10:00:00\.\d{6}\+00:00$/);
    expect(list[1]!.created_at).toBe(formatTimestamp(chatbot.createdAt));
  });

  it("shows the detail form: the list fields plus system_prompt and fallback_message", async () => {
    const { parley, caller, chatbot } = await setup();
    const detail = await parley.getChatbot(caller, chatbot.id.toUpperCase());
    expect(Object.keys(detail)).toEqual(["id", "name", "slug", "provider", "is_active", "created_at", "system_prompt", "fallback_message"]);
    expect(detail).toMatchObject({ id: chatbot.id, system_prompt: "You help customers of Acme.", fallback_message: "Sorry, I have no answer." });
  });

  it("reports another user's, a deleted and a malformed id as not found", async () => {
    const { parley, caller, chatbot } = await setup();
    const other = await parley.admin.createUser({ email: "other@example.com" });
    const theirs = await parley.admin.createChatbot({ userId: other.id, name: "Theirs", provider: "openai", model: "m" });
    await parley.admin.deleteChatbot(chatbot.id);
    for (const id of [theirs.id, chatbot.id, "123", ""]) {
      expect(await rejection(parley.getChatbot(caller, id))).toMatchObject({ code: "not_found", detail: "Chatbot not found." });
    }
  });

  it("gives each of an owner's chatbots a unique slug, freeing the slug of a deleted one", async () => {
    const { parley, user } = await setup();
    const create = (name: string) => parley.admin.createChatbot({ userId: user.id, name, provider: "openai", model: "m" });
    const first = await create("Support Bot");
    expect([first.slug, (await create("Support bot")).slug, (await create("support-bot!")).slug]).toEqual(["support-bot", "support-bot-2", "support-bot-3"]);
    await parley.admin.deleteChatbot(first.id);
    expect((await create("Support Bot")).slug).toBe("support-bot");
  });
});

describe("slugify", () => {
  it.each([
    ["Crème Brûlée Bot!", "creme-brulee-bot"],
    ["  Straße  Help ", "strasse-help"],
    ["ÆØ Ltd", "aeo-ltd"],
    ["🤖🤖", "chatbot"],
    ["--Hello--World--", "hello-world"],
    ["日本語 bot 2", "bot-2"],
  ])("%j → %j", (name, slug) => {
    expect(slugify(name)).toBe(slug);
  });
});
