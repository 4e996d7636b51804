// The providers and remote embedders driving the core's real chat pipeline (in-memory storage
// and search), each against its fake: what the "done when" asks for.
import type { Embedder, Provider } from "@parley/core";
import { createLocalEmbedder, createParley, isParleyError } from "@parley/core";
import { createMemorySearchIndex, createMemoryStorage } from "@parley/core/memory";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createChatModels } from "./create-chat-models.js";
import { createRemoteEmbedder, parseEmbedderSpec, type RemoteEmbedderSpec } from "./embedder-spec.js";
import { FAST_RETRIES, TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { failWith, replyWith, streamWith } from "./testing/fake-behaviours.js";
import { startFakeAnthropic, type FakeAnthropic } from "./testing/fake-anthropic.js";
import { startFakeOllama, type FakeOllama } from "./testing/fake-ollama.js";
import { startFakeOpenAI, type FakeOpenAI } from "./testing/fake-openai.js";

let openai: FakeOpenAI;
let anthropic: FakeAnthropic;
let ollama: FakeOllama;
beforeEach(async () => {
  [openai, anthropic, ollama] = await Promise.all([startFakeOpenAI(), startFakeAnthropic({ apiKey: TEST_API_KEY }), startFakeOllama()]);
});
afterEach(async () => {
  await Promise.all([openai.close(), anthropic.close(), ollama.close()]);
});

function environment() {
  return testEnvironment({
    OPENAI_API_KEY: TEST_API_KEY,
    OPENAI_BASE_URL: openai.url,
    ANTHROPIC_API_KEY: TEST_API_KEY,
    ANTHROPIC_BASE_URL: anthropic.url,
    OLLAMA_HOST: ollama.url,
  });
}

async function parleyWith(embedder: Embedder, provider: Provider, extraEnv: Record<string, string> = {}) {
  const env = { ...environment(), ...extraEnv };
  const parley = createParley({
    storage: createMemoryStorage(),
    searchIndex: createMemorySearchIndex(),
    embedder,
    chatModels: createChatModels({ env, ...FAST_RETRIES }),
  });
  const user = await parley.admin.createUser({ email: "owner@example.com" });
  const { key } = await parley.admin.createApiKey({ userId: user.id });
  const caller = await parley.authenticate(key);
  const chatbot = await parley.admin.createChatbot({
    userId: user.id,
    name: "Acme Helper",
    provider,
    model: `${provider}-test-model`,
    systemPrompt: "You help customers of Acme.",
    fallbackMessage: "Sorry, I have no answer.",
  });
  await parley.admin.ingestDocument(chatbot.id, { source: "refunds.md", title: "Refund policy", text: "Refunds are issued within 14 days of purchase." });
  return { parley, caller, chatbot };
}

const chatRoutes = () => ({ openai: openai.chat, anthropic: anthropic.messages, ollama: ollama.chat });

describe.each(["openai:text-embedding-3-small", "ollama:nomic-embed-text"])("with PARLEY_EMBEDDER=%s", (embedderText) => {
  const embedder = () => createRemoteEmbedder(parseEmbedderSpec(embedderText) as RemoteEmbedderSpec, environment(), FAST_RETRIES);

  test.each(["openai", "anthropic", "ollama"] as const)("%s answers a chat with the retrieved context", async (provider) => {
    const { parley, caller, chatbot } = await parleyWith(embedder(), provider);
    chatRoutes()[provider].enqueue(replyWith("You have 14 days."));
    await expect(parley.chat(caller, chatbot.id, { message: "How long do I have for a refund?" })).resolves.toMatchObject({
      response: "You have 14 days.",
      humanTakeover: false,
      sources: [{ documentId: expect.any(String), title: "Refund policy", source: "refunds.md", page: null }],
    });
    const sent = JSON.stringify(chatRoutes()[provider].requests[0]?.body);
    expect(sent).toContain(`${provider}-test-model`);
    expect(sent).toContain("Refunds are issued within 14 days");
    expect(sent).toContain("How long do I have for a refund?");
    const embeddingRequests = embedderText.startsWith("openai") ? openai.embeddings.requests : ollama.embed.requests;
    // One call embeds the ingested document, one the question: the vector arm ran on the remote embedder.
    expect(embeddingRequests.map((request) => JSON.stringify(request.body))).toEqual([
      expect.stringContaining("Refunds are issued within 14 days of purchase."),
      expect.stringContaining("How long do I have for a refund?"),
    ]);
  });

  test.each(["openai", "anthropic", "ollama"] as const)("%s streams a chat through the core: deltas as written, then the stored reply with its sources", async (provider) => {
    const { parley, caller, chatbot } = await parleyWith(embedder(), provider);
    chatRoutes()[provider].enqueue(streamWith(["You have ", "14 days", "."]));
    const events = [];
    for await (const event of parley.chatStream(caller, chatbot.id, { message: "How long do I have for a refund?", session_id: "stream" })) events.push(event);
    expect(events.map((event) => (event.type === "delta" ? event.text : event.type))).toEqual(["message", "You have ", "14 days", ".", "reply"]);
    expect(events.at(-1)).toMatchObject({
      type: "reply",
      message: { content: "You have 14 days.", sources: [{ title: "Refund policy", source: "refunds.md", page: null }] },
    });
    expect(JSON.stringify(chatRoutes()[provider].requests[0]?.body)).toContain("Refunds are issued within 14 days");
  });

  test.each(["openai", "anthropic", "ollama"] as const)("%s: a stream that breaks half-way stores nothing of it and fails with the safe detail", async (provider) => {
    const { parley, caller, chatbot } = await parleyWith(embedder(), provider);
    chatRoutes()[provider].enqueue(streamWith(["You have ", "14"], { end: "reset" }));
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of parley.chatStream(caller, chatbot.id, { message: "Refund?", session_id: "broken" })) seen.push(event.type);
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual(["message", "delta", "delta"]);
    expect(isParleyError(error, "provider_failed")).toBe(true);
    expect((error as { detail: string }).detail).toBe("The language model provider failed to answer.");
    const { conversation, messages } = await parley.admin.showConversation(chatbot.id, "broken");
    expect(messages.map((message) => message.role)).toEqual(["user"]);
    expect(conversation.needsAttention).toBe(true);
  });

  test.each(["openai", "anthropic", "ollama"] as const)("%s: an empty reply gives the fallback message", async (provider) => {
    const { parley, caller, chatbot } = await parleyWith(embedder(), provider);
    chatRoutes()[provider].enqueue(replyWith("   "));
    await expect(parley.chat(caller, chatbot.id, { message: "Anything?" })).resolves.toMatchObject({ response: "Sorry, I have no answer." });
  });

  test.each(["openai", "anthropic", "ollama"] as const)("%s: a provider failure is provider_failed with the safe detail", async (provider) => {
    const { parley, caller, chatbot } = await parleyWith(embedder(), provider);
    chatRoutes()[provider].respondWith(failWith(500, { message: "stack trace with secrets" }));
    const error = await parley.chat(caller, chatbot.id, { message: "Hello?" }).catch((caught: unknown) => caught);
    expect(isParleyError(error, "provider_failed")).toBe(true);
    expect((error as { detail: string }).detail).toBe("The language model provider failed to answer.");
  });
});

describe.each(["openai", "anthropic", "ollama"] as const)("%s: a streamed chat that fails ends as docs/design.md §15 says", (provider) => {
  const failures = {
    "breaks half-way": () => ({ behaviour: streamWith(["Refunds ", "take"], { end: "reset" }), deltas: 2 }),
    "sends the provider's error event half-way": () => ({ behaviour: streamWith(["Refunds "], { end: "error" }), deltas: 1 }),
    "falls silent between two tokens": () => ({ behaviour: streamWith(["Refunds "], { end: "hang" }), deltas: 1 }),
    "fails before the first token": () => ({ behaviour: failWith(500, { message: "stack trace with secrets" }), deltas: 0 }),
    "is aborted between two tokens": () => ({ behaviour: streamWith(["Refunds "], { end: "hang" }), deltas: 1, abort: true }),
  };
  test.each(Object.keys(failures) as (keyof typeof failures)[])("when the provider %s: nothing of the reply stored, attention asked, the safe detail", async (failure) => {
    // A short deadline for the silent case: only it can end that stream.
    const { parley, caller, chatbot } = await parleyWith(createLocalEmbedder(), provider, { PARLEY_LLM_TIMEOUT_MS: "400" });
    const { behaviour, deltas, abort } = { abort: false, ...failures[failure]() };
    chatRoutes()[provider].respondWith(behaviour);
    const controller = new AbortController();
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of parley.chatStream(caller, chatbot.id, { message: "Refund?", session_id: "failing" }, { signal: controller.signal })) {
        seen.push(event.type);
        if (event.type === "delta" && abort) controller.abort(new Error("shutting down"));
      }
    })().catch((caught: unknown) => caught);
    expect(seen).toEqual(["message", ...Array<string>(deltas).fill("delta")]);
    expect(isParleyError(error, "provider_failed")).toBe(true);
    expect((error as { detail: string }).detail).toBe("The language model provider failed to answer.");
    const { conversation, messages } = await parley.admin.showConversation(chatbot.id, "failing");
    expect(messages.map((message) => message.role)).toEqual(["user"]);
    expect(conversation.needsAttention).toBe(true);
  });
});

test("the nomic-embed-text embedder sends document and query prefixes through the core", async () => {
  const { parley, caller, chatbot } = await parleyWith(createRemoteEmbedder({ kind: "ollama", model: "nomic-embed-text" }, environment()), "ollama");
  await parley.chat(caller, chatbot.id, { message: "refund days" });
  const inputs = ollama.embed.requests.flatMap((request) => (request.body as { input: string[] }).input);
  expect(inputs.some((input) => input.startsWith("search_document: "))).toBe(true);
  expect(inputs).toContain("search_query: refund days");
});
