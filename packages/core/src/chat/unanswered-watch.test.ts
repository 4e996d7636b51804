import { afterEach, describe, expect, it, vi } from "vitest";
import { createParley } from "../parley.js";
import { createLocalEmbedder } from "../retrieval/local-embedder.js";
import { setup } from "../../test/harness.js";

// A reply cut off with its process: the visitor message is stored, then nothing. A second Parley
// on the same storage stands for the process started again.
async function cutOffReply() {
  const first = await setup();
  first.model.enqueue({ deltas: [new Promise<string>(() => undefined)] });
  for await (const event of first.parley.chatStream(first.caller, first.chatbot.id, { message: "Is it under warranty?", session_id: "cut" })) if (event.type === "message") break;
  await first.parley.chat(first.caller, first.chatbot.id, { message: "And shipping?", session_id: "answered" });
  const restarted = createParley({ storage: first.storage, searchIndex: first.searchIndex, embedder: createLocalEmbedder(), chatModels: { openai: first.model }, clock: first.clock });
  const conversationOf = async (session: string) => (await first.storage.findConversation(first.chatbot.id, session))!;
  return { ...first, restarted, conversationOf };
}

afterEach(() => vi.useRealTimers());

describe("the watch for replies cut off with their process", () => {
  it("marks the conversation left with its visitor's message for an agent, once, and leaves an answered one alone", async () => {
    const { restarted, clock, conversationOf } = await cutOffReply();
    clock.advance(1_000);
    const watch = restarted.createUnansweredWatch();
    expect(await watch.runOnce()).toBe(1);
    expect(await conversationOf("cut")).toMatchObject({ needsAttention: true, attentionReason: "provider_failed" });
    expect(await conversationOf("answered")).toMatchObject({ needsAttention: false, attentionReason: null });
    expect(await watch.runOnce()).toBe(0);
  });

  it("looks once, afterMs after its start, at the messages stored before the start, and says what it marked", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { restarted, clock, conversationOf, parley, caller, chatbot, model } = await cutOffReply();
    const log: Record<string, unknown>[] = [];
    const watch = restarted.createUnansweredWatch({ afterMs: 60_000, log: (line) => log.push(line) });
    clock.advance(1_000);
    watch.start();
    // A message stored after the start is this process's own business, answered or not.
    clock.advance(1_000);
    model.enqueue({ deltas: [new Promise<string>(() => undefined)] });
    for await (const event of parley.chatStream(caller, chatbot.id, { message: "Still there?", session_id: "later" })) if (event.type === "message") break;
    await vi.advanceTimersByTimeAsync(59_999);
    expect(await conversationOf("cut")).toMatchObject({ needsAttention: false });
    await vi.advanceTimersByTimeAsync(1);
    await watch.stop();
    expect(await conversationOf("cut")).toMatchObject({ needsAttention: true, attentionReason: "provider_failed" });
    expect(await conversationOf("later")).toMatchObject({ needsAttention: false });
    expect(log).toEqual([expect.objectContaining({ level: "warn", event: "unanswered_conversations_marked", conversations: 1 })]);
  });

  it("looks no more once stopped before its time", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { restarted, clock, conversationOf } = await cutOffReply();
    clock.advance(1_000);
    const watch = restarted.createUnansweredWatch({ afterMs: 60_000 });
    watch.start();
    await watch.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await conversationOf("cut")).toMatchObject({ needsAttention: false });
  });
});
