import OpenAI from "openai";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createOpenAIEmbedder } from "./openai-embedder.js";
import { expectProviderFailed } from "./test-support/chat-model-failure-cases.js";
import { FAST_RETRIES, TEST_API_KEY, testEnvironment } from "./test-support/test-environment.js";
import { embedWith, failWith } from "./testing/fake-behaviours.js";
import { fakeEmbedding } from "./testing/fake-embedding.js";
import { startFakeOpenAI, type FakeOpenAI } from "./testing/fake-openai.js";

describe("OpenAI embedder", () => {
  let fake: FakeOpenAI;
  beforeEach(async () => {
    fake = await startFakeOpenAI();
  });
  afterEach(async () => {
    await fake.close();
  });
  const embedder = (options: { model?: string; dimensions?: number; maxBatchSize?: number } = {}) =>
    createOpenAIEmbedder({ model: "text-embedding-3-small", apiKey: TEST_API_KEY, baseURL: fake.url, env: testEnvironment(), ...FAST_RETRIES, ...options });

  test("declares its id, dimensions, batch size and semantic fusion defaults", () => {
    const small = embedder();
    expect(small.id).toBe("openai:text-embedding-3-small");
    expect(small.dimensions).toBe(1536);
    expect(small.maxBatchSize).toBe(128);
    expect(small.fusion).toEqual({ k: 60, keywordWeight: 1, vectorWeight: 1 });
    expect(embedder({ model: "text-embedding-3-large" }).dimensions).toBe(3072);
  });

  test("sends batches of maxBatchSize and keeps the order", async () => {
    const texts = ["alpha", "bravo", "charlie", "delta", "echo"];
    const vectors = await embedder({ maxBatchSize: 2 }).embed(texts, "document");
    expect(fake.embeddings.requests.map((request) => (request.body as { input: string[] }).input)).toEqual([
      ["alpha", "bravo"],
      ["charlie", "delta"],
      ["echo"],
    ]);
    expect(vectors).toHaveLength(5);
    vectors.forEach((vector, index) => {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(1536);
      expect(Array.from(vector)).toEqual(Array.from(Float32Array.from(fakeEmbedding(texts[index]!, 1536))));
    });
  });

  test("asks for floats, so a compatible server that ignores base64 still works", async () => {
    await embedder().embed(["hello"], "query");
    expect(fake.embeddings.requests[0]?.body).toEqual({ model: "text-embedding-3-small", input: ["hello"], encoding_format: "float" });
  });

  test("puts vectors back in index order", async () => {
    fake.embeddings.respondWith((request) => {
      const inputs = (request.body as { input: string[] }).input;
      return embedWith(inputs.map((_, index) => [index, 0, 0]));
    });
    const vectors = await createOpenAIEmbedder({ model: "custom", dimensions: 3, apiKey: TEST_API_KEY, baseURL: fake.url, env: testEnvironment() }).embed(["a", "b"], "document");
    expect(vectors.map((vector) => vector[0])).toEqual([0, 1]);
  });

  test("sends no request for no texts", async () => {
    await expect(embedder().embed([], "document")).resolves.toEqual([]);
    expect(fake.requestCount).toBe(0);
  });

  test("a shortened text-embedding-3 model sends dimensions and names them in its id", async () => {
    const short = embedder({ dimensions: 256 });
    expect(short.id).toBe("openai:text-embedding-3-small?dimensions=256");
    fake.embeddings.enqueue(embedWith([new Array(256).fill(0.1)]));
    await short.embed(["x"], "query");
    expect(fake.embeddings.requests[0]?.body).toMatchObject({ dimensions: 256 });
  });

  test("an unknown model needs the dimensions option", () => {
    expect(() => createOpenAIEmbedder({ model: "my-embedder", apiKey: TEST_API_KEY, env: testEnvironment() })).toThrow(
      'The vector size of embedding model "my-embedder" is not known: pass the dimensions option (PARLEY_EMBEDDER_DIMENSIONS for the server).',
    );
    expect(createOpenAIEmbedder({ model: "my-embedder", dimensions: 10, apiKey: TEST_API_KEY, env: testEnvironment() }).dimensions).toBe(10);
  });

  test("vectors of the wrong length are a failure, not a corrupt index", async () => {
    fake.embeddings.enqueue(embedWith([[0.1, 0.2]]));
    const error = await expectProviderFailed(embedder().embed(["x"], "document"));
    expect(error.retryable).toBe(false);
  });

  test("retries a 500, gives up on a 401", async () => {
    fake.embeddings.enqueue(failWith(500), failWith(401));
    const error = await expectProviderFailed(embedder().embed(["x"], "document"));
    expect(error.upstreamStatus).toBe(401);
    expect(fake.embeddings.requestCount).toBe(2);
    await expect(embedder().embed(["x"], "document")).resolves.toHaveLength(1);
  });

  test("the fake honours the SDK's default base64 encoding", async () => {
    const client = new OpenAI({ apiKey: TEST_API_KEY, baseURL: fake.url, maxRetries: 0 });
    const response = await client.embeddings.create({ model: "text-embedding-3-small", input: ["hello world"] });
    expect(fake.embeddings.requests[0]?.body).toMatchObject({ encoding_format: "base64" });
    const expected = Array.from(Float32Array.from(fakeEmbedding("hello world", 1536)));
    expect(response.data[0]?.embedding).toEqual(expected);
  });
});
