import { describe, expect, it } from "vitest";
import { createMemoryStorage } from "../memory/memory-storage.js";
import type { Storage } from "../ports/storage.js";
import { rejection, setup } from "../../test/harness.js";

/** A storage whose every call yields to the event loop first, like a networked database. */
function slowStorage(): Storage {
  const inner = createMemoryStorage();
  return new Proxy(inner, {
    get(target, property) {
      const value = target[property as keyof Storage];
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        await new Promise((resolve) => setImmediate(resolve));
        return (value as (...inner: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

describe("chat: the monthly quota", () => {
  it("refuses before anything is stored, with the plan, the limit and the reset date", async () => {
    const { parley, caller, chatbot, storage, outbox, model, user } = await setup();
    await parley.admin.setPlan("free", 2);
    await parley.chat(caller, chatbot.id, { message: "1", session_id: "a" });
    await parley.chat(caller, chatbot.id, { message: "2", session_id: "a" });
    const before = (await outbox()).length;
    const error = await rejection(parley.chat(caller, chatbot.id, { message: "3", session_id: "new-session" }));
    expect(error.code).toBe("quota_exceeded");
    expect(error.detail).toBe(
      "Monthly message limit reached: the free plan allows 2 messages per month. The limit resets on 2026-12-01.",
    );
    // 2026-11-21T10:00Z to 2026-12-01T00:00Z
    expect(error.retryAfterSeconds).toBe(9 * 86_400 + 14 * 3_600);
    expect(await storage.findConversation(chatbot.id, "new-session")).toBeNull();
    expect((await outbox()).length).toBe(before);
    expect(model.requests).toHaveLength(2);
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(2);
  });

  it("counts only user messages, and starts again in the next UTC month", async () => {
    const { parley, caller, chatbot, clock } = await setup();
    await parley.admin.setPlan("free", 1);
    await parley.chat(caller, chatbot.id, { message: "1" });
    await expect(parley.chat(caller, chatbot.id, { message: "2" })).rejects.toMatchObject({ code: "quota_exceeded" });
    clock.set(Date.parse("2026-12-01T00:00:00Z") * 1000);
    await expect(parley.chat(caller, chatbot.id, { message: "3" })).resolves.toMatchObject({ humanTakeover: false });
  });

  it("honours a per-user override of the plan's limit", async () => {
    const { parley, chatbot, caller: owner } = await setup();
    const vip = await parley.admin.createUser({ email: "vip@example.com", monthlyMessages: 1 });
    const { key } = await parley.admin.createApiKey({ userId: vip.id });
    const bot = await parley.admin.createChatbot({ userId: vip.id, name: "VIP", provider: "openai", model: "m" });
    const caller = await parley.authenticate(key);
    await parley.chat(caller, bot.id, { message: "1" });
    const error = await rejection(parley.chat(caller, bot.id, { message: "2" }));
    expect(error.detail).toMatch(/^Monthly message limit reached: the free plan allows 1 messages per month\./);
    // The harness's owner, on the same plan without an override, is not limited to 1.
    await parley.chat(owner, chatbot.id, { message: "1" });
    await expect(parley.chat(owner, chatbot.id, { message: "2" })).resolves.toMatchObject({ response: "echo: 2", humanTakeover: false });
  });

  it.each([
    ["in-memory storage", undefined],
    ["storage that yields on every call", slowStorage],
  ])("accepts exactly 10 of 25 concurrent messages with 10 left (%s)", async (_name, makeStorage) => {
    const { parley, caller, chatbot, storage, user } = await setup(makeStorage ? { storage: makeStorage() } : {});
    await parley.admin.setPlan("free", 12);
    await parley.chat(caller, chatbot.id, { message: "warm-up 1", session_id: "warm" });
    await parley.chat(caller, chatbot.id, { message: "warm-up 2", session_id: "warm" });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 25 }, (_, index) => parley.chat(caller, chatbot.id, { message: `m${index}`, session_id: `s${index}` })),
    );
    const fulfilled = outcomes.filter((outcome) => outcome.status === "fulfilled");
    const refused = outcomes.filter((outcome) => outcome.status === "rejected");
    expect(fulfilled).toHaveLength(10);
    expect(refused.every((outcome) => (outcome as PromiseRejectedResult).reason.code === "quota_exceeded")).toBe(true);
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(12);
  });
});

describe("chat: the per-conversation rate limit", () => {
  it("refuses the 21st message in a minute in one conversation, and not in another one", async () => {
    const { parley, caller, chatbot, clock, storage } = await setup();
    for (let index = 0; index < 20; index += 1) await parley.chat(caller, chatbot.id, { message: `m${index}`, session_id: "busy" });
    const error = await rejection(parley.chat(caller, chatbot.id, { message: "one too many", session_id: "busy" }));
    expect(error.code).toBe("conversation_rate_limited");
    expect(error.detail).toBe("Conversation rate limit exceeded. Maximum 20 messages per minute in one conversation.");
    // The manual clock has not moved: the first of the 20 leaves the window in exactly a minute.
    expect(error.retryAfterSeconds).toBe(60);
    await expect(parley.chat(caller, chatbot.id, { message: "elsewhere", session_id: "calm" })).resolves.toMatchObject({ response: "echo: elsewhere", humanTakeover: false });
    const conversation = await storage.findConversation(chatbot.id, "busy");
    expect((await storage.listMessages(conversation!.id)).filter((message) => message.role === "user")).toHaveLength(20);
    clock.advance(60_000);
    await expect(parley.chat(caller, chatbot.id, { message: "later", session_id: "busy" })).resolves.toMatchObject({ response: "echo: later", humanTakeover: false });
  });

  it("uses the configured limit in its detail", async () => {
    const { parley, caller, chatbot } = await setup({ settings: { conversationMessagesPerMinute: 2 } });
    await parley.chat(caller, chatbot.id, { message: "1" });
    await parley.chat(caller, chatbot.id, { message: "2" });
    const error = await rejection(parley.chat(caller, chatbot.id, { message: "3" }));
    expect(error.detail).toBe("Conversation rate limit exceeded. Maximum 2 messages per minute in one conversation.");
  });

  it("is checked after the quota: an exhausted quota is reported first", async () => {
    const { parley, caller, chatbot } = await setup({ settings: { conversationMessagesPerMinute: 1 } });
    await parley.admin.setPlan("free", 1);
    await parley.chat(caller, chatbot.id, { message: "1", session_id: "s" });
    const error = await rejection(parley.chat(caller, chatbot.id, { message: "2", session_id: "s" }));
    expect(error.code).toBe("quota_exceeded");
  });
});

describe("chat: order of checks and bad input", () => {
  it.each([
    ["no message", {}, "message: must be a non-empty string"],
    ["a number", { message: 42 }, "message: must be a non-empty string"],
    ["a blank message", { message: "   " }, "message: must be a non-empty string"],
    ["32,001 characters", { message: "x".repeat(32_001) }, "message: must be at most 32000 characters"],
    ["a numeric session", { message: "hi", session_id: 7 }, "session_id: must be a non-empty string"],
    ["an empty session", { message: "hi", session_id: "" }, "session_id: must be a non-empty string"],
    ["a 256-character session", { message: "hi", session_id: "s".repeat(256) }, "session_id: must be at most 255 characters"],
    ["an array", [], "body: must be a JSON object"],
    ["null", null, "body: must be a JSON object"],
  ])("refuses %s with invalid_request", async (_label, body, detail) => {
    const { parley, caller, chatbot } = await setup();
    expect(await rejection(parley.chat(caller, chatbot.id, body))).toMatchObject({ code: "invalid_request", detail });
  });

  it("accepts 32,000 characters (emoji count as one), ignores unknown fields", async () => {
    const { parley, caller, chatbot, storage } = await setup();
    const message = "😀".repeat(32_000); // 64,000 UTF-16 code units
    await expect(parley.chat(caller, chatbot.id, { message, extra: true, session_id: "long" })).resolves.toMatchObject({ response: `echo: ${message}`, humanTakeover: false });
    const conversation = await storage.findConversation(chatbot.id, "long");
    const stored = await storage.listMessages(conversation!.id);
    expect(stored.map(({ role, content }) => ({ role, content }))).toEqual([
      { role: "user", content: message },
      { role: "assistant", content: `echo: ${message}` },
    ]);
  });

  it("validates the body before looking up the chatbot", async () => {
    const { parley, caller } = await setup();
    const error = await rejection(parley.chat(caller, "00000000-0000-4000-8000-00000000ffff", {}));
    expect(error.code).toBe("invalid_request");
  });

  it("reports a missing chatbot, another user's chatbot, a deleted one and a malformed id all as 'Chatbot not found.'", async () => {
    const { parley, caller, chatbot } = await setup();
    const other = await parley.admin.createUser({ email: "other@example.com" });
    const othersBot = await parley.admin.createChatbot({ userId: other.id, name: "Theirs", provider: "openai", model: "m" });
    const deleted = await parley.admin.createChatbot({ userId: caller.user.id, name: "Gone", provider: "openai", model: "m" });
    await parley.admin.deleteChatbot(deleted.id);
    for (const id of ["00000000-0000-4000-8000-00000000ffff", othersBot.id, deleted.id, "not-a-uuid", "' OR 1=1 --"]) {
      expect(await rejection(parley.chat(caller, id, { message: "hi" }))).toMatchObject({ code: "not_found", detail: "Chatbot not found." });
    }
    // The caller's own chatbot is found: not_found is not the answer to everything.
    await expect(parley.chat(caller, chatbot.id, { message: "hi" })).resolves.toMatchObject({ response: "echo: hi", humanTakeover: false });
  });

  it("refuses a paused chatbot with nothing stored, counted or fired, and serves it again once resumed", async () => {
    const { parley, caller, chatbot, storage, outbox, user } = await setup();
    await parley.admin.pauseChatbot(chatbot.id);
    expect(await rejection(parley.chat(caller, chatbot.id, { message: "hi", session_id: "s" }))).toMatchObject({
      code: "chatbot_paused",
      detail: "Chatbot is paused by its owner.",
    });
    expect(await storage.findConversation(chatbot.id, "s")).toBeNull();
    expect(await outbox()).toHaveLength(0);
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(0);
    await parley.admin.resumeChatbot(chatbot.id);
    await expect(parley.chat(caller, chatbot.id, { message: "hi", session_id: "s" })).resolves.toMatchObject({ response: "echo: hi", humanTakeover: false });
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(1);
  });
});
