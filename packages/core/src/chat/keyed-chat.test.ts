import { describe, expect, it } from "vitest";
import { invalidRequest } from "../errors.js";
import type { KeyedChatProgress } from "./keyed-chat.js";
import { rejection, setup } from "../../test/harness.js";

// A chat sent with an API key reads the key with the chat's state and counts both limits in one
// step (docs/scaling.md, "Round trips of a chat"); its refusals must still come in the order of
// docs/design.md §4: 401, per-key 429, 403, the body, 404, paused, the quota, the conversation's 429.

const body = (value: unknown) => () => Promise.resolve(value);
const missing = "7c1f0a9e-0000-4000-8000-000000000000";

describe("chatWithKey", () => {
  it("answers with the key's status as authenticate, admitRequest and chat would", async () => {
    const { parley, chatbot } = await setup();
    const { key } = await parley.admin.createApiKey({ userId: chatbot.ownerId });
    const progress: KeyedChatProgress = {};
    const result = await parley.chatWithKey(key, chatbot.id, body({ message: "Hello", session_id: "s" }), progress);
    expect(result.humanTakeover).toBe(false);
    expect(progress.caller?.user.id).toBe(chatbot.ownerId);
    expect(progress.rateLimit).toEqual({ limit: 60, remaining: 59, resetSeconds: 60 });
    // Without a session: the user's own conversation, as chat() names it.
    await parley.chatWithKey(key, chatbot.id, body({ message: "Again" }), {});
    const own = await parley.chat({ user: progress.caller!.user }, chatbot.id, { message: "Third" });
    expect(own.message.conversationId).toBeDefined();
    expect((await parley.chatWithKey(key, chatbot.id, body({ message: "Fourth" }), {})).message.conversationId).toBe(own.message.conversationId);
  });

  it("refuses in the order of the spec, each refusal before the later ones", async () => {
    const { parley, chatbot } = await setup({ settings: { keyRequestsPerMinute: 6, conversationMessagesPerMinute: 1 } });
    const { key } = await parley.admin.createApiKey({ userId: chatbot.ownerId });
    const { key: agent } = await parley.admin.createApiKey({ userId: chatbot.ownerId, scope: "agent", name: "Ada" });
    const refused = async (apiKey: string | undefined, chatbotId: string, readBody: () => Promise<unknown>) => {
      const progress: KeyedChatProgress = {};
      const error = await rejection(parley.chatWithKey(apiKey, chatbotId, readBody, progress));
      return { code: error.code, detail: error.detail, keyKnown: progress.caller !== undefined, limited: progress.rateLimit !== undefined };
    };
    const badBody = () => Promise.reject(invalidRequest("message: must be a non-empty string"));

    // 401 before everything, the body unread for a malformed key.
    let read = false;
    expect(await refused("prl_short", missing, () => ((read = true), Promise.resolve({})))).toMatchObject({ code: "unauthorized", keyKnown: false });
    expect(read).toBe(false);
    expect(await refused(`prl_${"x".repeat(43)}`, missing, badBody)).toMatchObject({ code: "unauthorized", keyKnown: false });
    // 403 (an agent key) before the body; the body before the chatbot; 404 before paused.
    expect(await refused(agent, missing, badBody)).toMatchObject({ code: "forbidden", keyKnown: true, limited: true });
    expect(await refused(key, missing, badBody)).toMatchObject({ code: "invalid_request", detail: "message: must be a non-empty string", limited: true });
    expect(await refused(key, "not-a-uuid", body({ message: "hi" }))).toMatchObject({ code: "not_found" });
    expect(await refused(key, missing, body({ message: "hi" }))).toMatchObject({ code: "not_found" });
    await parley.admin.pauseChatbot(chatbot.id);
    expect(await refused(key, chatbot.id, body({ message: "hi" }))).toMatchObject({ code: "chatbot_paused" });
    await parley.admin.resumeChatbot(chatbot.id);
    // The conversation's limit counts only messages every other check let through.
    await parley.chatWithKey(key, chatbot.id, body({ message: "one", session_id: "s" }), {});
    expect(await refused(key, chatbot.id, body({ message: "two", session_id: "s" }))).toMatchObject({ code: "conversation_rate_limited", limited: true });
    // Six requests counted for the key (the refused ones too): the seventh is the key's 429, before the rest.
    expect(await refused(key, missing, badBody)).toMatchObject({ code: "rate_limited", keyKnown: true, limited: false });
    expect(await refused(agent, missing, badBody)).toMatchObject({ code: "forbidden" }); // another key, its own window
  });

  it("reports the quota before the conversation's limit, and a used-up quota counts no conversation hit", async () => {
    const { parley, chatbot } = await setup({ settings: { conversationMessagesPerMinute: 1 } });
    const { key } = await parley.admin.createApiKey({ userId: chatbot.ownerId });
    await parley.admin.setPlan("free", 1);
    await parley.chatWithKey(key, chatbot.id, body({ message: "one", session_id: "s" }), {});
    expect((await rejection(parley.chatWithKey(key, chatbot.id, body({ message: "two", session_id: "s" }), {}))).code).toBe("quota_exceeded");
    await parley.admin.setPlan("free", 5);
    expect((await rejection(parley.chatWithKey(key, chatbot.id, body({ message: "three", session_id: "s" }), {}))).code).toBe("conversation_rate_limited");
    // Another session: its window is empty, the quota refusal above counted nothing in it.
    await expect(parley.chatWithKey(key, chatbot.id, body({ message: "four", session_id: "t" }), {})).resolves.toMatchObject({ humanTakeover: false });
  });
});
