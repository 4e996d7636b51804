import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runChatModelStreamCases } from "./test-support/chat-model-stream-cases.js";
import type { ChatModelSubject } from "./test-support/chat-model-failure-cases.js";
import { createAnthropicChatModel } from "./anthropic-chat-model.js";
import { expectProviderFailed, runChatModelFailureCases, SAMPLE_REQUEST } from "./test-support/chat-model-failure-cases.js";
import { TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { replyWith } from "./testing/fake-behaviours.js";
import { startFakeAnthropic, type FakeAnthropic } from "./testing/fake-anthropic.js";

const subject: ChatModelSubject = {
  name: "Anthropic",
  start: async () => {
    const fake = await startFakeAnthropic();
    return { url: fake.url, route: fake.messages, close: () => fake.close() };
  },
  urlFor: (origin) => origin,
  create: (url, settings) => createAnthropicChatModel({ apiKey: TEST_API_KEY, baseURL: url, ...settings }),
  retryableStatuses: [429, 500, 503, 529],
  readsRetryAfter: true,
};
runChatModelFailureCases(subject);
runChatModelStreamCases({
  ...subject,
  expectStreamRequest: (body) => {
    expect(body).toMatchObject({ stream: true });
  },
  reportedUsage: { inputTokens: 11, outputTokens: 7 },
});

describe("Anthropic chat model", () => {
  let fake: FakeAnthropic;
  beforeEach(async () => {
    fake = await startFakeAnthropic({ apiKey: TEST_API_KEY });
  });
  afterEach(async () => {
    await fake.close();
  });
  const model = () => createAnthropicChatModel({ apiKey: TEST_API_KEY, baseURL: fake.url, env: testEnvironment() });

  test("puts the system text in the top-level system field and sets max_tokens", async () => {
    await model().complete(SAMPLE_REQUEST);
    const [request] = fake.messages.requests;
    expect(request?.path).toBe("/v1/messages");
    expect(request?.headers["anthropic-version"]).toBeTruthy();
    expect(request?.body).toEqual({
      model: "fake-model-1",
      max_tokens: 321,
      system: "You are Parley's test bot.",
      messages: [
        { role: "user", content: "What are your opening hours?" },
        { role: "assistant", content: "We open at nine." },
        { role: "user", content: "And on Sundays?" },
      ],
    });
  });

  test("returns the reply text and the token usage", async () => {
    fake.messages.enqueue(replyWith("Closed on Sundays.", { usage: { inputTokens: 55, outputTokens: 4 } }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({ text: "Closed on Sundays.", usage: { inputTokens: 55, outputTokens: 4 } });
  });

  test("an empty content list is an empty reply", async () => {
    fake.messages.enqueue(replyWith("", { usage: { inputTokens: 55, outputTokens: 0 } }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({ text: "", usage: { inputTokens: 55, outputTokens: 0 } });
  });

  test("sends strictly alternating turns that start with the user", async () => {
    await model().complete({
      ...SAMPLE_REQUEST,
      messages: [
        { role: "assistant", content: "An agent said hello." },
        { role: "user", content: "Hi." },
        { role: "assistant", content: "Hello!" },
        { role: "user", content: "Question one." },
        { role: "user", content: "Question two." },
      ],
    });
    expect((fake.messages.requests[0]?.body as { messages: unknown }).messages).toEqual([
      { role: "user", content: "Hi." },
      { role: "assistant", content: "Hello!" },
      { role: "user", content: "Question one.\n\nQuestion two." },
    ]);
  });

  test("falls back to ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL", async () => {
    const env = testEnvironment({ ANTHROPIC_API_KEY: TEST_API_KEY, ANTHROPIC_BASE_URL: fake.url });
    await expect(createAnthropicChatModel({ env }).complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "This is the fake model's reply." });
    expect(fake.messages.requests[0]?.headers.authorization ?? fake.messages.requests[0]?.headers["x-api-key"]).toContain(TEST_API_KEY);
  });

  test("a wrong key is a 401 and is not retried", async () => {
    const wrongKey = createAnthropicChatModel({ apiKey: "sk-ant-wrong", baseURL: fake.url, env: testEnvironment() });
    const error = await expectProviderFailed(wrongKey.complete(SAMPLE_REQUEST));
    expect(error.upstreamStatus).toBe(401);
    expect(error.message).not.toContain("sk-ant-wrong");
    expect(fake.requestCount).toBe(1);
  });

  test("without an API key every call fails, and nothing is sent", async () => {
    const keyless = createAnthropicChatModel({ baseURL: fake.url, env: testEnvironment() });
    const error = await expectProviderFailed(keyless.complete(SAMPLE_REQUEST));
    expect(String((error.cause as Error).message)).toContain("ANTHROPIC_API_KEY");
    expect(fake.requestCount).toBe(0);
  });
});
