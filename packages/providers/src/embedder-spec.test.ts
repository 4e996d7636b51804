import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createRemoteEmbedder, parseEmbedderSpec } from "./embedder-spec.js";
import { TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { startFakeOllama, type FakeOllama } from "./testing/fake-ollama.js";
import { startFakeOpenAI, type FakeOpenAI } from "./testing/fake-openai.js";

describe("parseEmbedderSpec", () => {
  test.each([undefined, "", "  ", "local"])("%j means the built-in local embedder", (text) => {
    expect(parseEmbedderSpec(text)).toEqual({ kind: "local" });
  });

  test("reads openai:<model> and ollama:<model>, keeping an Ollama tag", () => {
    expect(parseEmbedderSpec("openai:text-embedding-3-small")).toEqual({ kind: "openai", model: "text-embedding-3-small" });
    expect(parseEmbedderSpec(" ollama:nomic-embed-text ")).toEqual({ kind: "ollama", model: "nomic-embed-text" });
    expect(parseEmbedderSpec("ollama:nomic-embed-text:v1.5")).toEqual({ kind: "ollama", model: "nomic-embed-text:v1.5" });
  });

  test.each(["openai", "openai:", "ollama: "])("%j names no model", (text) => {
    expect(() => parseEmbedderSpec(text)).toThrow(/names no model: use "local", "openai:<model>" or "ollama:<model>"/);
  });

  test.each(["cohere:embed-v4", "LOCAL", "hashing", "anthropic:x"])("%j is refused with the accepted forms", (text) => {
    expect(() => parseEmbedderSpec(text)).toThrow(
      `PARLEY_EMBEDDER must be "local", "openai:<model>" or "ollama:<model>" (e.g. openai:text-embedding-3-small, ollama:nomic-embed-text); got "${text}".`,
    );
  });
});

describe("createRemoteEmbedder", () => {
  let openai: FakeOpenAI;
  let ollama: FakeOllama;
  beforeEach(async () => {
    [openai, ollama] = await Promise.all([startFakeOpenAI(), startFakeOllama()]);
  });
  afterEach(async () => {
    await Promise.all([openai.close(), ollama.close()]);
  });

  test("builds the OpenAI embedder from the environment", async () => {
    const env = testEnvironment({ OPENAI_API_KEY: TEST_API_KEY, OPENAI_BASE_URL: openai.url });
    const embedder = createRemoteEmbedder(parseEmbedderSpec("openai:text-embedding-3-small") as { kind: "openai"; model: string }, env);
    expect(embedder.id).toBe("openai:text-embedding-3-small");
    await expect(embedder.embed(["hello"], "query")).resolves.toHaveLength(1);
    expect(openai.embeddings.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_API_KEY}`);
  });

  test("builds the Ollama embedder from OLLAMA_HOST, with PARLEY_EMBEDDER_DIMENSIONS for an unknown model", async () => {
    const env = testEnvironment({ OLLAMA_HOST: ollama.url, PARLEY_EMBEDDER_DIMENSIONS: "8" });
    const embedder = createRemoteEmbedder({ kind: "ollama", model: "tiny-embedder" }, env);
    expect(embedder.id).toBe("ollama:tiny-embedder");
    expect(embedder.dimensions).toBe(8);
    const [vector] = await embedder.embed(["hello"], "document");
    expect(vector).toHaveLength(8);
  });

  test("explicit options win over the environment", () => {
    const embedder = createRemoteEmbedder({ kind: "ollama", model: "nomic-embed-text" }, testEnvironment({ PARLEY_EMBEDDER_DIMENSIONS: "8" }), {
      dimensions: 768,
      maxBatchSize: 4,
    });
    expect(embedder.dimensions).toBe(768);
    expect(embedder.maxBatchSize).toBe(4);
  });
});
