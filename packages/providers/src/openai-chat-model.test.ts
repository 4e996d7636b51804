import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { runChatModelStreamCases } from "./test-support/chat-model-stream-cases.js";
import type { ChatModelSubject } from "./test-support/chat-model-failure-cases.js";
import { createOpenAIChatModel } from "./openai-chat-model.js";
import { runChatModelFailureCases, SAMPLE_REQUEST, expectProviderFailed } from "./test-support/chat-model-failure-cases.js";
import { FAST_RETRIES, TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { hangForever, replyWith } from "./testing/fake-behaviours.js";
import { startFakeOpenAI, type FakeOpenAI } from "./testing/fake-openai.js";

const subject: ChatModelSubject = {
  name: "OpenAI",
  start: async () => {
    const fake = await startFakeOpenAI();
    return { url: fake.url, route: fake.chat, close: () => fake.close() };
  },
  urlFor: (origin) => `${origin}/v1`,
  create: (url, settings) => createOpenAIChatModel({ apiKey: TEST_API_KEY, baseURL: url, ...settings }),
  retryableStatuses: [429, 500, 503],
  readsRetryAfter: true,
};
runChatModelFailureCases(subject);
runChatModelStreamCases({
  ...subject,
  expectStreamRequest: (body) => {
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  },
  reportedUsage: { inputTokens: 11, outputTokens: 7 },
});

describe("OpenAI chat model", () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
  });
  const model = () => createOpenAIChatModel({ apiKey: TEST_API_KEY, baseURL: fake.url, env: testEnvironment() });

  test("sends the model, the system text first, the history in order and the token limit", async () => {
    await model().complete(SAMPLE_REQUEST);
    const [request] = fake.chat.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
    expect(request?.body).toEqual({
      model: "fake-model-1",
      messages: [
        { role: "system", content: "You are Parley's test bot." },
        { role: "user", content: "What are your opening hours?" },
        { role: "assistant", content: "We open at nine." },
        { role: "user", content: "And on Sundays?" },
      ],
      // A compatible server (any base URL but OpenAI's) gets the field they all know.
      max_tokens: 321,
    });
  });

  test("sends max_completion_tokens to OpenAI's own endpoint", async () => {
    // The SDK talks to api.openai.com; this fetch delivers the request to the fake instead.
    const redirect: typeof fetch = (input, init) => fetch(String(input instanceof Request ? input.url : input).replace("https://api.openai.com/v1", fake.url), init);
    const openai = createOpenAIChatModel({ apiKey: TEST_API_KEY, env: testEnvironment(), fetch: redirect });
    await openai.complete(SAMPLE_REQUEST);
    const body = fake.chat.requests[0]?.body as Record<string, unknown>;
    expect(body.max_completion_tokens).toBe(321);
    expect(body).not.toHaveProperty("max_tokens");
  });

  test("the maxTokensField option overrides the choice", async () => {
    await createOpenAIChatModel({ apiKey: TEST_API_KEY, baseURL: fake.url, env: testEnvironment(), maxTokensField: "max_completion_tokens" }).complete(SAMPLE_REQUEST);
    expect(fake.chat.requests[0]?.body).toMatchObject({ max_completion_tokens: 321 });
  });

  test("returns the reply text and the token usage", async () => {
    fake.chat.enqueue(replyWith("We are closed on Sundays.", { usage: { inputTokens: 42, outputTokens: 7 } }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({
      text: "We are closed on Sundays.",
      usage: { inputTokens: 42, outputTokens: 7 },
    });
  });

  test("leaves usage out when the server reports none", async () => {
    fake.chat.enqueue(replyWith("No counts here.", { usage: null }));
    await expect(model().complete(SAMPLE_REQUEST)).resolves.toEqual({ text: "No counts here." });
  });

  test("joins consecutive turns of one role and drops assistant turns before the first user turn", async () => {
    await model().complete({
      ...SAMPLE_REQUEST,
      messages: [
        { role: "assistant", content: "Orphaned greeting." },
        { role: "user", content: "First question?" },
        { role: "user", content: "Anyone there?" },
      ],
    });
    expect((fake.chat.requests[0]?.body as { messages: unknown[] }).messages).toEqual([
      { role: "system", content: "You are Parley's test bot." },
      { role: "user", content: "First question?\n\nAnyone there?" },
    ]);
  });

  test("falls back to OPENAI_API_KEY, OPENAI_BASE_URL and PARLEY_LLM_TIMEOUT_MS", async () => {
    const env = testEnvironment({ OPENAI_API_KEY: "sk-from-env", OPENAI_BASE_URL: fake.url, PARLEY_LLM_TIMEOUT_MS: "200" });
    const fromEnvironment = createOpenAIChatModel({ env, ...FAST_RETRIES });
    await expect(fromEnvironment.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "This is the fake model's reply." });
    expect(fake.chat.requests[0]?.headers.authorization).toBe("Bearer sk-from-env");
    fake.chat.enqueue(hangForever());
    // The 200 ms of PARLEY_LLM_TIMEOUT_MS, not the 60 s default, ended the call.
    const error = await expectProviderFailed(fromEnvironment.complete(SAMPLE_REQUEST));
    expect((error.cause as Error).message).toBe("The OpenAI provider did not answer within 200 ms.");
  });

  test("explicit options win over the environment", async () => {
    const env = testEnvironment({ OPENAI_API_KEY: "sk-from-env", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    await createOpenAIChatModel({ apiKey: "sk-explicit", baseURL: fake.url, env }).complete(SAMPLE_REQUEST);
    expect(fake.chat.requests[0]?.headers.authorization).toBe("Bearer sk-explicit");
  });

  test("without an API key every call fails, and nothing is sent", async () => {
    const keyless = createOpenAIChatModel({ baseURL: fake.url, env: testEnvironment() });
    const error = await expectProviderFailed(keyless.complete(SAMPLE_REQUEST));
    expect(String((error.cause as Error).message)).toContain("OPENAI_API_KEY");
    expect(fake.requestCount).toBe(0);
  });

  test("a 200 without choices is a failure, not an empty reply", async () => {
    fake.chat.respondWith(() => ({ kind: "error", status: 200, message: "no choices", headers: {} }));
    const error = await expectProviderFailed(model().complete(SAMPLE_REQUEST));
    expect(error.retryable).toBe(false);
  });

  test("rejects a timeout that is not a positive number", () => {
    expect(() => createOpenAIChatModel({ apiKey: TEST_API_KEY, env: testEnvironment(), timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => createOpenAIChatModel({ apiKey: TEST_API_KEY, env: testEnvironment({ PARLEY_LLM_TIMEOUT_MS: "soon" }) })).toThrow(
      /PARLEY_LLM_TIMEOUT_MS/,
    );
  });
});
