import { seededRandom } from "@parley/core/contract";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

// Enough chunks that a search goes through the int8 first pass (it re-scores at least 100
// candidates, so smaller chatbots are scored exactly), with vectors of mixed signs and a few
// heavy dimensions each, like the local embedder's.
const SPACE = { embedderId: "test-64", dimensions: 64 };
const BOT = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const CHUNKS = 3_000;

function randomVector(random: () => number): Float32Array {
  const vector = new Float32Array(SPACE.dimensions);
  for (let index = 0; index < vector.length; index++) vector[index] = (random() - 0.5) * (random() < 0.15 ? 4 : 0.5);
  return vector;
}

const cosine = (a: Float32Array, b: Float32Array) => {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  a.forEach((value, index) => {
    dot += value * b[index]!;
    normA += value * value;
    normB += b[index]! * b[index]!;
  });
  return dot / Math.sqrt(normA * normB);
};

async function seeded() {
  const random = seededRandom(5);
  const index = createSqliteSearchIndex({ database: openDatabase({ path: ":memory:" }) });
  const vectors = Array.from({ length: CHUNKS }, () => randomVector(random));
  const documents = Array.from({ length: CHUNKS / 10 }, (_, document) => ({
    source: `doc-${document}`,
    title: `Document ${document}`,
    chunks: vectors.slice(document * 10, document * 10 + 10).map((embedding, chunk) => ({ text: `chunk ${document * 10 + chunk}`, embedding })),
  }));
  await index.replaceDocuments(BOT, SPACE, documents);
  const queries = Array.from({ length: 30 }, () => randomVector(random));
  return { index, vectors, queries };
}

const exactTop = (vectors: Float32Array[], query: Float32Array, k: number, excluded = new Set<number>()) =>
  vectors
    .map((vector, chunk) => ({ chunk, score: cosine(vector, query) }))
    .filter(({ chunk }) => !excluded.has(chunk))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);

describe("SQLite vector search on a large chatbot", () => {
  it("finds nearly all of the exact top 10, with exact cosine scores in order", async () => {
    const { index, vectors, queries } = await seeded();
    let found = 0;
    for (const query of queries) {
      const hits = await index.vectorSearch(BOT, SPACE, query, 10);
      expect(hits).toHaveLength(10);
      const exact = new Set(exactTop(vectors, query, 10).map(({ chunk }) => `chunk ${chunk}`));
      found += hits.filter((hit) => exact.has(hit.text)).length;
      for (const hit of hits) expect(hit.score).toBeCloseTo(cosine(vectors[Number(hit.text.slice(6))]!, query), 5);
      expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  it("never returns a deleted chunk, and finds the next best instead", async () => {
    const { index, vectors, queries } = await seeded();
    const query = queries[0]!;
    const best = exactTop(vectors, query, 1)[0]!.chunk;
    expect((await index.vectorSearch(BOT, SPACE, query, 1))[0]!.text).toBe(`chunk ${best}`);
    const document = Math.floor(best / 10);
    await index.deleteDocument(BOT, `doc-${document}`);
    const removed = new Set(Array.from({ length: 10 }, (_, chunk) => document * 10 + chunk));
    const hits = await index.vectorSearch(BOT, SPACE, query, 5);
    expect(hits.some((hit) => removed.has(Number(hit.text.slice(6))))).toBe(false);
    expect(hits[0]!.text).toBe(`chunk ${exactTop(vectors, query, 1, removed)[0]!.chunk}`);
  });

  it("scores a zero query as 0 instead of failing", async () => {
    const { index } = await seeded();
    const hits = await index.vectorSearch(BOT, SPACE, new Float32Array(SPACE.dimensions), 3);
    expect(hits.map((hit) => hit.score)).toEqual([0, 0, 0]);
  });
});
