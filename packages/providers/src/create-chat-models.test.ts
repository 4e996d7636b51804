import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createChatModels } from "./create-chat-models.js";
import { expectProviderFailed, SAMPLE_REQUEST } from "./test-support/chat-model-failure-cases.js";
import { TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { startFakeAnthropic, type FakeAnthropic } from "./testing/fake-anthropic.js";
import { startFakeOllama, type FakeOllama } from "./testing/fake-ollama.js";
import { startFakeOpenAI, type FakeOpenAI } from "./testing/fake-openai.js";
import { replyWith } from "./testing/fake-behaviours.js";

describe("createChatModels", () => {
  let openai: FakeOpenAI;
  let anthropic: FakeAnthropic;
  let ollama: FakeOllama;
  beforeEach(async () => {
    [openai, anthropic, ollama] = await Promise.all([startFakeOpenAI(), startFakeAnthropic(), startFakeOllama()]);
    openai.chat.respondWith(replyWith("from openai"));
    anthropic.messages.respondWith(replyWith("from anthropic"));
    ollama.chat.respondWith(replyWith("from ollama"));
  });
  afterEach(async () => {
    await Promise.all([openai.close(), anthropic.close(), ollama.close()]);
  });

  test("registers each provider under its name, configured from the environment", async () => {
    const models = createChatModels({
      env: testEnvironment({
        OPENAI_API_KEY: TEST_API_KEY,
        OPENAI_BASE_URL: openai.url,
        ANTHROPIC_API_KEY: TEST_API_KEY,
        ANTHROPIC_BASE_URL: anthropic.url,
        OLLAMA_HOST: ollama.url,
      }),
    });
    expect(Object.keys(models).sort()).toEqual(["anthropic", "ollama", "openai"]);
    for (const provider of ["openai", "anthropic", "ollama"] as const) {
      const model = models[provider]!;
      expect(model.provider).toBe(provider);
      await expect(model.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: `from ${provider}` });
    }
  });

  test("per-provider options win over shared ones", async () => {
    const models = createChatModels({
      env: testEnvironment(),
      timeoutMs: 5_000,
      openai: { apiKey: TEST_API_KEY, baseURL: openai.url },
      ollama: { host: ollama.url },
    });
    await expect(models.openai!.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "from openai" });
    await expect(models.ollama!.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "from ollama" });
  });

  test("a provider without a key is registered but fails each call", async () => {
    const models = createChatModels({ env: testEnvironment({ OLLAMA_HOST: ollama.url }) });
    await expectProviderFailed(models.openai!.complete(SAMPLE_REQUEST));
    await expectProviderFailed(models.anthropic!.complete(SAMPLE_REQUEST));
    await expect(models.ollama!.complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "from ollama" });
  });
});
