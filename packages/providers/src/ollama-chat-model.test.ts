import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runChatModelStreamCases } from "./test-support/chat-model-stream-cases.js";
import type { ChatModelSubject } from "./test-support/chat-model-failure-cases.js";
import { createOllamaChatModel } from "./ollama-chat-model.js";
import { runChatModelFailureCases, SAMPLE_REQUEST } from "./test-support/chat-model-failure-cases.js";
import { testEnvironment } from "./test-support/test-environment.js";
import { replyWith } from "./testing/fake-behaviours.js";
import { startFakeOllama, type FakeOllama } from "./testing/fake-ollama.js";

const subject: ChatModelSubject = {
  name: "Ollama",
  start: async () => {
    const fake = await startFakeOllama();
    return { url: fake.url, route: fake.chat, close: () => fake.close() };
  },
  urlFor: (origin) => origin,
  create: (url, settings) => createOllamaChatModel({ host: url, ...settings }),
  retryableStatuses: [429, 500, 503],
  // ollama's ResponseError keeps the status but not the headers.
  readsRetryAfter: false,
};
runChatModelFailureCases(subject);
runChatModelStreamCases({
  ...subject,
  expectStreamRequest: (body) => {
    expect(body).toMatchObject({ stream: true });
  },
  reportedUsage: { inputTokens: 11, outputTokens: 7 },
});

describe("Ollama chat model", () => {
  let fake: FakeOllama;
  beforeEach(async () => {
    fake = await startFakeOllama();
  });
  afterEach(async () => {
    await fake.close();
  });
  const model = () => createOllamaChatModel({ host: fake.url, env: testEnvironment() });

  test("sends the model, the system text first, the history in order, stream false and num_predict", async () => {
    await model().complete(SAMPLE_REQUEST);
    const [request] = fake.chat.requests;
    expect(request?.path).toBe("/api/chat");
    expect(request?.body).toEqual({
      model: "fake-model-1",
      messages: [
        { role: "system", content: "You are Parley's test bot." },
        { role: "user", content: "What are your opening hours?" },
        { role: "assistant", content: "We open at nine." },
        { role: "user", content: "And on Sundays?" },
      ],
      stream: false,
      options: { num_predict: 321 },
    });
  });

  test("returns the reply text and the token usage from the eval counts", async () => {
    fake.chat.enqueue(replyWith("Closed on Sundays.", { usage: { inputTokens: 30, outputTokens: 5 } }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({ text: "Closed on Sundays.", usage: { inputTokens: 30, outputTokens: 5 } });
  });

  test("leaves usage out when Ollama reports no counts", async () => {
    fake.chat.enqueue(replyWith("No counts.", { usage: null }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({ text: "No counts." });
  });

  test("reads OLLAMA_HOST, which the ollama client itself ignores", async () => {
    const fromEnvironment = createOllamaChatModel({ env: testEnvironment({ OLLAMA_HOST: fake.url }) });
    await expect(fromEnvironment.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "This is the fake model's reply." });
    expect(fake.chat.requestCount).toBe(1);
  });

  test("accepts OLLAMA_HOST without a scheme, as Ollama's own tools do", async () => {
    const hostAndPort = fake.url.replace("http://", "");
    await createOllamaChatModel({ env: testEnvironment({ OLLAMA_HOST: hostAndPort }) }).complete(SAMPLE_REQUEST);
    expect(fake.chat.requestCount).toBe(1);
  });
});
