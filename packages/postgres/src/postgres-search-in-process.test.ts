import type { DocumentToIndex, EmbeddingSpace, SearchIndex } from "@parley/core";
import { seededRandom } from "@parley/core/contract";
import { cosineSimilarity } from "@parley/core/vectors";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { moveToPgvector } from "./migrations/move-to-pgvector.js";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { vectorMode } from "./postgres-vector-mode.js";
import { testDatabaseUrl, useTestSchema } from "./test-postgres.js";
import { truncateSearch, usePglite } from "./test-pglite.js";

// The vector arm of a database without pgvector: in the server process, exact enough, never
// stale across processes, and movable to pgvector later.

const SPACE: EmbeddingSpace = { embedderId: "test-64", dimensions: 64 };
const BOT = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const CHUNKS = 3_000;

/** Mixed signs and a few heavy dimensions, like the local embedder's vectors. */
function randomVector(random: () => number): Float32Array {
  const vector = new Float32Array(SPACE.dimensions);
  for (let index = 0; index < vector.length; index++) vector[index] = (random() - 0.5) * (random() < 0.15 ? 4 : 0.5);
  return vector;
}

function corpus(seed: number, chunks = CHUNKS) {
  const random = seededRandom(seed);
  const vectors = Array.from({ length: chunks }, () => randomVector(random));
  const documents: DocumentToIndex[] = Array.from({ length: chunks / 10 }, (_, document) => ({
    source: `doc-${document}`,
    title: `Document ${document}`,
    chunks: vectors.slice(document * 10, document * 10 + 10).map((embedding, chunk) => ({ text: `chunk ${document * 10 + chunk}`, embedding })),
  }));
  return { vectors, documents, queries: Array.from({ length: 30 }, () => randomVector(random)) };
}

const exactTop = (vectors: Float32Array[], query: Float32Array, k: number, excluded = new Set<number>()) =>
  vectors
    .map((vector, chunk) => ({ chunk, score: cosineSimilarity(vector, query) }))
    .filter(({ chunk }) => !excluded.has(chunk))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);

const chunkOf = (text: string) => Number(text.slice(6));

/** The test server (a schema of its own) or, without one, PGlite; both forced in-process. */
const usePool = testDatabaseUrl === undefined ? usePglite(4, "in-process") : useTestSchema(testDatabaseUrl, ["search"], 4, "in-process");

describe("in-process vectors on PostgreSQL", () => {
  let pool: pg.Pool;
  beforeEach(async () => {
    pool = usePool();
    await truncateSearch(pool);
  });

  it("stores float32 bytes, finds nearly all of the exact top 10, with exact cosine scores in order", async () => {
    expect(await vectorMode(pool)).toBe("in-process");
    const { vectors, documents, queries } = corpus(5);
    const index = createPostgresSearchIndex({ pool });
    await index.replaceDocuments(BOT, SPACE, documents);
    let found = 0;
    for (const query of queries) {
      const hits = await index.vectorSearch(BOT, SPACE, query, 10);
      expect(hits).toHaveLength(10);
      const exact = new Set(exactTop(vectors, query, 10).map(({ chunk }) => chunk));
      found += hits.filter((hit) => exact.has(chunkOf(hit.text))).length;
      for (const hit of hits) expect(hit.score).toBeCloseTo(cosineSimilarity(vectors[chunkOf(hit.text)]!, query), 5);
      expect(hits.map((hit) => hit.score)).toEqual([...hits.map((hit) => hit.score)].sort((a, b) => b - a));
    }
    expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
  });

  describe("with a second process's index on its own connections", () => {
    let otherPool: pg.Pool;
    beforeAll(() => {
      // Another pool on the same schema: what another server process would hold.
      const options = pool.options as pg.PoolConfig;
      otherPool = new pg.Pool({ ...options, max: 2 });
      otherPool.on("error", () => {});
    });
    afterAll(async () => otherPool?.end());

    it("never serves a copy older than the chunks another process wrote, deleted or re-embedded", async () => {
      const { vectors, documents, queries } = corpus(9, 400);
      const searcher = createPostgresSearchIndex({ pool });
      const writer = createPostgresSearchIndex({ pool: otherPool });
      await writer.replaceDocuments(BOT, SPACE, documents);
      const query = queries[0]!;
      const best = exactTop(vectors, query, 1)[0]!.chunk;
      expect(chunkOf((await searcher.vectorSearch(BOT, SPACE, query, 1))[0]!.text)).toBe(best); // the copy is warm now

      // Deleted elsewhere: gone from the next search.
      const document = Math.floor(best / 10);
      await writer.deleteDocument(BOT, `doc-${document}`);
      const removed = new Set(Array.from({ length: 10 }, (_, chunk) => document * 10 + chunk));
      const afterDelete = await searcher.vectorSearch(BOT, SPACE, query, 5);
      expect(afterDelete.some((hit) => removed.has(chunkOf(hit.text)))).toBe(false);
      expect(chunkOf(afterDelete[0]!.text)).toBe(exactTop(vectors, query, 1, removed)[0]!.chunk);

      // Added elsewhere: the query itself as a new chunk comes first.
      await writer.replaceDocument(BOT, SPACE, { source: "new", title: "New", chunks: [{ text: "chunk 99999", embedding: query }] });
      const afterAdd = await searcher.vectorSearch(BOT, SPACE, query, 1);
      expect(afterAdd[0]!.text).toBe("chunk 99999");
      expect(afterAdd[0]!.score).toBeCloseTo(1, 5);

      // Re-embedded in place elsewhere (the same ids, new vectors): scored on the new ones.
      const chunks = await writer.listChunks(BOT, { limit: 10_000 });
      const flipped = chunks.map((chunk, position) => ({ chunkId: chunk.chunkId, embedding: position === 7 ? query : Float32Array.from(query, (value) => -value) }));
      await writer.replaceEmbeddings(BOT, SPACE, flipped, { reset: false });
      const afterReembed = await searcher.vectorSearch(BOT, SPACE, query, 2);
      expect(afterReembed[0]!.chunkId).toBe(chunks[7]!.chunkId);
      expect(afterReembed[1]!.score).toBeCloseTo(-1, 5);
    });
  });
});

describe("moving a database from in-process vectors to pgvector (PGlite, which has pgvector)", () => {
  const pglite = usePglite(2, "in-process");

  it("copies every vector into a pgvector column once, and searches find the same chunks with the same scores", async () => {
    const pool = pglite();
    const { documents, queries } = corpus(3, 300);
    const before: SearchIndex = createPostgresSearchIndex({ pool });
    await before.replaceDocuments(BOT, SPACE, documents);
    expect(await vectorMode(pool)).toBe("in-process");
    const expected = await Promise.all(queries.slice(0, 5).map((query) => before.vectorSearch(BOT, SPACE, query, 5)));

    expect(await moveToPgvector(pool)).toEqual({ moved: 300 });
    expect(await vectorMode(pool)).toBe("pgvector");
    const { rows } = await pool.query("SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'search_chunks'::regclass AND attname = 'embedding'");
    expect(rows[0].type).toBe("vector");
    const after = createPostgresSearchIndex({ pool });
    const actual = await Promise.all(queries.slice(0, 5).map((query) => after.vectorSearch(BOT, SPACE, query, 5)));
    expect(actual.map((hits) => hits.map((hit) => hit.chunkId))).toEqual(expected.map((hits) => hits.map((hit) => hit.chunkId)));
    actual.flat().forEach((hit, position) => expect(hit.score).toBeCloseTo(expected.flat()[position]!.score, 5));
    // Writes after the move go to the vector column.
    await after.replaceDocument(BOT, SPACE, { source: "late", title: "Late", chunks: [{ text: "late", embedding: queries[9]! }] });
    expect((await after.vectorSearch(BOT, SPACE, queries[9]!, 1))[0]!.text).toBe("late");
    expect(await moveToPgvector(pool)).toBeNull();
  }, 60_000);
});

