import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createOllamaEmbedder } from "./ollama-embedder.js";
import { expectProviderFailed } from "./test-support/chat-model-failure-cases.js";
import { FAST_RETRIES, testEnvironment } from "./test-support/test-environment.js";
import { failWith, hangForever } from "./testing/fake-behaviours.js";
import { fakeEmbedding } from "./testing/fake-embedding.js";
import { startFakeOllama, type FakeOllama } from "./testing/fake-ollama.js";

describe("Ollama embedder", () => {
  let fake: FakeOllama;
  beforeEach(async () => {
    fake = await startFakeOllama();
  });
  afterEach(async () => {
    await fake.close();
  });
  const embedder = (options: { model?: string; maxBatchSize?: number; timeoutMs?: number } = {}) =>
    createOllamaEmbedder({ model: "nomic-embed-text", host: fake.url, env: testEnvironment(), ...FAST_RETRIES, ...options });
  const inputs = () => fake.embed.requests.map((request) => (request.body as { input: string[] }).input);

  test("declares its id, dimensions and semantic fusion defaults", () => {
    const nomic = embedder();
    expect(nomic.id).toBe("ollama:nomic-embed-text");
    expect(nomic.dimensions).toBe(768);
    expect(nomic.fusion).toEqual({ k: 60, keywordWeight: 1, vectorWeight: 1 });
    expect(embedder({ model: "nomic-embed-text:latest" }).id).toBe("ollama:nomic-embed-text");
    expect(embedder({ model: "mxbai-embed-large:335m" }).dimensions).toBe(1024);
  });

  test("prefixes nomic-embed-text queries and documents as the model expects", async () => {
    await embedder().embed(["opening hours"], "query");
    await embedder().embed(["We open at nine."], "document");
    expect(fake.embed.requests[0]?.body).toEqual({ model: "nomic-embed-text", input: ["search_query: opening hours"] });
    expect(inputs()[1]).toEqual(["search_document: We open at nine."]);
  });

  test("adds no prefix for a model that wants none", async () => {
    await embedder({ model: "all-minilm" }).embed(["plain"], "query");
    expect(inputs()).toEqual([["plain"]]);
  });

  test("sends batches of maxBatchSize, in order, as Float32Arrays of the right length", async () => {
    const texts = ["one", "two", "three", "four", "five"];
    const vectors = await embedder({ maxBatchSize: 2 }).embed(texts, "document");
    expect(inputs()).toEqual([
      ["search_document: one", "search_document: two"],
      ["search_document: three", "search_document: four"],
      ["search_document: five"],
    ]);
    vectors.forEach((vector, index) => {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(768);
      expect(Array.from(vector)).toEqual(Array.from(Float32Array.from(fakeEmbedding(`search_document: ${texts[index]}`, 768))));
    });
  });

  test("reads OLLAMA_HOST", async () => {
    const fromEnvironment = createOllamaEmbedder({ model: "nomic-embed-text", env: testEnvironment({ OLLAMA_HOST: fake.url }) });
    await expect(fromEnvironment.embed(["x"], "query")).resolves.toHaveLength(1);
    expect(fake.embed.requestCount).toBe(1);
  });

  test("retries a 503 and bounds a hanging call with the deadline", async () => {
    fake.embed.enqueue(failWith(503));
    await expect(embedder().embed(["x"], "query")).resolves.toHaveLength(1);
    expect(fake.embed.requestCount).toBe(2);
    fake.embed.enqueue(hangForever());
    const error = await expectProviderFailed(embedder({ timeoutMs: 150 }).embed(["x"], "query"));
    expect((error.cause as Error).message).toBe("The Ollama provider did not answer within 150 ms.");
  });

  test("an unknown model needs the dimensions option", () => {
    expect(() => createOllamaEmbedder({ model: "my-own-embedder", env: testEnvironment() })).toThrow(/dimensions option/);
  });
});
