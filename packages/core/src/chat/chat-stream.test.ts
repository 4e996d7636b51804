import { describe, expect, it } from "vitest";
import type { ChatStreamEvent } from "./chat-stream.js";
import { isParleyError } from "../errors.js";
import { rejection, setup } from "../../test/harness.js";

/** A pause a scripted model waits on until the test opens it. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function collect(stream: AsyncIterable<ChatStreamEvent>): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe("chatStream: the seven steps, streamed", () => {
  it("yields the stored user message, the deltas in order, then the stored reply, stored once with one message.sent", async () => {
    const { parley, caller, chatbot, model, storage, outbox } = await setup();
    model.enqueue({ deltas: ["We ", "open ", "at nine."] });
    const events = await collect(parley.chatStream(caller, chatbot.id, { message: "  When do you open?  ", session_id: "s" }));
    expect(events.map((event) => event.type)).toEqual(["message", "delta", "delta", "delta", "reply"]);
    expect(events.filter((event) => event.type === "delta").map((event) => event.text)).toEqual(["We ", "open ", "at nine."]);
    const [first, , , , last] = events;
    expect(first).toMatchObject({ type: "message", message: { role: "user", author: "end_user", content: "When do you open?" } });
    expect(last).toMatchObject({ type: "reply", message: { role: "assistant", author: "model", content: "We open at nine.", sources: [] } });
    const conversation = await storage.findConversation(chatbot.id, "s");
    expect(await storage.listMessages(conversation!.id)).toEqual([(first as { message: unknown }).message, (last as { message: unknown }).message]);
    expect((await outbox()).map((event) => event.type)).toEqual(["conversation.started", "message.received", "message.sent"]);
    expect(model.requests[0]).toMatchObject({ model: "gpt-test", maxTokens: 1024, messages: [{ role: "user", content: "When do you open?" }] });
  });

  it("sends the model the same prompt as chat() does", async () => {
    const { parley, caller, chatbot, model } = await setup();
    await parley.admin.ingestDocument(chatbot.id, { source: "refunds.md", title: "Refund policy", text: "Refunds are issued within 14 days of purchase." });
    await parley.chat(caller, chatbot.id, { message: "How long for a refund?", session_id: "a" });
    await collect(parley.chatStream(caller, chatbot.id, { message: "How long for a refund?", session_id: "b" }));
    const [viaChat, viaStream] = model.requests;
    expect(viaStream!.system).toBe(viaChat!.system);
    expect(viaStream!.messages).toEqual(viaChat!.messages);
  });

  it("stores the whole reply and its event once when the reader stops after the first delta", async () => {
    const { parley, caller, chatbot, model, storage, outbox } = await setup();
    const rest = gate();
    model.enqueue({ deltas: ["The whole ", rest.promise, "reply, ", "written to the end."] });
    const stream = parley.chatStream(caller, chatbot.id, { message: "hello", session_id: "tab" });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "delta") break; // the visitor closes the tab
    }
    expect(seen).toEqual(["message", "delta"]);
    // The model writes the rest only now, after the reader has gone.
    rest.open();
    await parley.whenRepliesSettled();
    const conversation = await storage.findConversation(chatbot.id, "tab");
    const messages = await storage.listMessages(conversation!.id);
    expect(messages.map((message) => message.content)).toEqual(["hello", "The whole reply, written to the end."]);
    const sent = (await outbox()).filter((event) => event.type === "message.sent");
    expect(sent.map((event) => (event.data as { content: string }).content)).toEqual(["The whole reply, written to the end."]);
    expect(conversation!.needsAttention).toBe(false);
  });

  it("generates the reply even when the reader stops right after the user message", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    model.enqueue({ deltas: ["Still ", "answered."] });
    const stream = parley.chatStream(caller, chatbot.id, { message: "bye", session_id: "gone" });
    expect((await stream.next()).value).toMatchObject({ type: "message" });
    await stream.return(undefined);
    await parley.whenRepliesSettled();
    const conversation = await storage.findConversation(chatbot.id, "gone");
    expect((await storage.listMessages(conversation!.id)).map((message) => message.content)).toEqual(["bye", "Still answered."]);
  });

  it("while an agent has the conversation: stores the message, yields handoff, does not call the model", async () => {
    const { parley, caller, chatbot, model, outbox } = await setup();
    await parley.admin.startTakeover(chatbot.id, "s");
    const events = await collect(parley.chatStream(caller, chatbot.id, { message: "anyone?", session_id: "s" }));
    expect(events.map((event) => event.type)).toEqual(["message", "handoff"]);
    expect(model.requests).toHaveLength(0);
    expect((await outbox()).at(-1)).toMatchObject({ type: "message.received", data: { human_takeover: true } });
  });

  it("refuses in the first next(), before anything is stored, as chat() does", async () => {
    const { parley, caller, chatbot, storage } = await setup();
    await parley.admin.pauseChatbot(chatbot.id);
    const error = await rejection(parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" }).next());
    expect(error).toMatchObject({ code: "chatbot_paused", detail: "Chatbot is paused by its owner." });
    expect(await storage.findConversation(chatbot.id, "s")).toBeNull();
  });

  it("replaces a blank streamed answer with the fallback message", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    model.enqueue({ deltas: ["  ", "\n"] });
    const events = await collect(parley.chatStream(caller, chatbot.id, { message: "?", session_id: "s" }));
    expect(events.at(-1)).toMatchObject({ type: "reply", message: { content: "Sorry, I have no answer.", sources: [] } });
    expect((await storage.findConversation(chatbot.id, "s"))!.needsAttention).toBe(true);
  });
});

describe("chatStream: when the model fails", () => {
  async function expectFailure(run: (context: Awaited<ReturnType<typeof setup>>) => Promise<ChatStreamEvent[]>) {
    const context = await setup();
    const seen: ChatStreamEvent[] = [];
    const error = await run(context).then(
      () => expect.fail("the stream should have failed"),
      (failure: unknown) => failure,
    );
    if (!isParleyError(error, "provider_failed")) throw error;
    expect(error.detail).toBe("The language model provider failed to answer.");
    const conversation = await context.storage.findConversation(context.chatbot.id, "s");
    // Nothing of the reply is stored, the user message stays, and an agent is asked for.
    expect((await context.storage.listMessages(conversation!.id)).map((message) => message.role)).toEqual(["user"]);
    expect(conversation!.needsAttention).toBe(true);
    expect((await context.outbox()).map((event) => event.type)).not.toContain("message.sent");
    return { error, seen };
  }

  it("a stream that breaks half-way", async () => {
    await expectFailure(async ({ parley, caller, chatbot, model }) => {
      model.enqueue({ deltas: ["Half ", "an answer"], error: new Error("connection reset: upstream secret") });
      const events = await collect(parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" }));
      return events;
    });
  });

  it("an error before the first token", async () => {
    await expectFailure(async ({ parley, caller, chatbot, model }) => {
      model.enqueue(new Error("503 from upstream"));
      return collect(parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" }));
    });
  });

  it("an aborted generation (shutdown), aborted while the model is between two tokens", async () => {
    await expectFailure(async ({ parley, caller, chatbot, model }) => {
      const controller = new AbortController();
      const never = gate();
      model.enqueue({ deltas: ["Start ", never.promise, "never sent"] });
      const seen: string[] = [];
      const events = parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" }, { signal: controller.signal });
      try {
        for await (const event of events) {
          seen.push(event.type);
          if (event.type === "delta") controller.abort(new Error("shutting down"));
        }
      } finally {
        expect(seen).toEqual(["message", "delta"]);
      }
      return [];
    });
  });

  it("abortReplies ends a generation nobody reads: nothing stored, attention asked, and whenRepliesSettled resolves", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    const never = gate();
    model.enqueue({ deltas: ["Started ", never.promise, "never finished"] });
    const stream = parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" });
    await stream.next();
    await stream.return(undefined);
    parley.abortReplies(new Error("shutting down"));
    await parley.whenRepliesSettled();
    const conversation = await storage.findConversation(chatbot.id, "s");
    expect((await storage.listMessages(conversation!.id)).map((message) => message.role)).toEqual(["user"]);
    expect(conversation!.needsAttention).toBe(true);
  });

  it("a failure nobody reads still marks the conversation and stores nothing", async () => {
    const { parley, caller, chatbot, model, storage } = await setup();
    const fail = gate();
    model.enqueue({ deltas: ["Partial ", fail.promise], error: new Error("broken stream") });
    const stream = parley.chatStream(caller, chatbot.id, { message: "hi", session_id: "s" });
    await stream.next();
    await stream.return(undefined);
    fail.open();
    await parley.whenRepliesSettled();
    const conversation = await storage.findConversation(chatbot.id, "s");
    expect((await storage.listMessages(conversation!.id)).map((message) => message.role)).toEqual(["user"]);
    expect(conversation!.needsAttention).toBe(true);
  });
});
