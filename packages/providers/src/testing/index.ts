/**
 * Fake OpenAI, Anthropic and Ollama servers for tests: each listens on 127.0.0.1 and a free
 * port, speaks its provider's wire format, and is scripted request by request.
 *
 * ```ts
 * const openai = await startFakeOpenAI();               // { url, chat, embeddings, requests, close }
 * const model = createOpenAIChatModel({ apiKey: "sk-test", baseURL: openai.url });
 * openai.chat.enqueue(failWith(503), replyWith("Hello")); // one behaviour per request, in order
 * openai.chat.respondWith(hangForever());                // once the queue is empty
 * openai.chat.requests[0]?.body;                         // what the SDK sent
 * await openai.close();                                  // also drops hanging requests
 * ```
 *
 * Chat endpoints stream when the request asks (OpenAI `stream: true`, Anthropic `stream: true`,
 * Ollama unless `stream: false`), in the provider's own wire format: a `replyWith` answer word by
 * word, or `streamWith(["Hel", "lo", pause, "!"], { end: "finish" | "reset" | "hang" | "error" })`.
 *
 * Behaviours: `replyWith(text, { usage, delayMs, until })`, `streamWith(parts, { end, usage })`, `embedWith(vectors)`,
 * `failWith(status, { message, headers })`, `answerMalformedJson()`, `resetConnection()`,
 * `hangForever()`. Without a script, chat answers {@link FAKE_REPLY_TEXT} and embeddings are
 * deterministic bag-of-words vectors ({@link fakeEmbedding}) of the model's known size.
 * `{ instant: true }` counts requests without recording them, for load benchmarks;
 * `{ apiKey }` makes a fake answer 401 to requests without that key.
 */
export { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from "./fake-openai.js";
export { startFakeAnthropic, type FakeAnthropic } from "./fake-anthropic.js";
export { startFakeOllama, type FakeOllama, type FakeOllamaOptions } from "./fake-ollama.js";
export {
  answerMalformedJson,
  FAKE_REPLY_TEXT,
  embedWith,
  estimateTokens,
  failWith,
  hangForever,
  replyWith,
  resetConnection,
  streamWith,
  wordsOf,
  type FakeBehaviour,
  type StreamEnd,
  type FakeUsage,
} from "./fake-behaviours.js";
export { fakeEmbedding, FAKE_DEFAULT_DIMENSIONS } from "./fake-embedding.js";
export type { BehaviourSource, FakeRoute, FakeServerOptions, RecordedRequest, StreamWire } from "./fake-server.js";
