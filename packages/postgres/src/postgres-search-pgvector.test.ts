import type { EmbeddingSpace } from "@parley/core";
import type pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { generatedDocuments } from "./test-documents.js";
import { truncateSearch, usePglite } from "./test-pglite.js";

// pgvector's own part: the HNSW index of a large chatbot. Only PGlite has pgvector on this
// machine, which is the point of running it there.

const SPACE: EmbeddingSpace = { embedderId: "test-3", dimensions: 3 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";
const OTHER = "0b7e8d9c-1a2b-4c3d-8e4f-5a6b7c8d9e0f";

const usePool = usePglite();
let pool: pg.Pool;
beforeEach(async () => {
  pool = usePool();
  await pool.query("DROP INDEX IF EXISTS search_chunks_hnsw_1, search_chunks_hnsw_2");
  await truncateSearch(pool);
});

describe("vectors on pgvector", () => {
  it("a chatbot past the threshold gets an HNSW index of its own rows, and finds what an exact search finds", async () => {
    const exact = createPostgresSearchIndex({ pool });
    const indexed = createPostgresSearchIndex({ pool, hnswThreshold: 50 });
    await indexed.replaceDocuments(BOT, SPACE, generatedDocuments(80, 6));
    await indexed.replaceDocuments(OTHER, SPACE, generatedDocuments(15, 5)); // at most 45 chunks, below the threshold: no index
    const { rows } = await pool.query("SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'search_chunks_hnsw_%'");
    expect(rows).toHaveLength(1);
    expect(rows[0].indexdef).toMatch(/USING hnsw .*vector_cosine_ops.*WHERE \(bot = '?1'?(::bigint)?\)/);
    const query = Float32Array.from([0.3, -0.2, 0.1]);
    await pool.query("SET enable_seqscan = off"); // so the planner must show it can use the index
    const plan = await pool.query(`EXPLAIN SELECT id FROM search_chunks WHERE bot = 1 AND embedding IS NOT NULL
      ORDER BY embedding::vector(3) <=> '[0.3,-0.2,0.1]'::vector(3) LIMIT 5`);
    await pool.query("RESET enable_seqscan");
    expect(plan.rows.map((row) => row["QUERY PLAN"]).join("\n")).toContain("search_chunks_hnsw_1");
    const found = await indexed.vectorSearch(BOT, SPACE, query, 10);
    expect(found.map((hit) => hit.chunkId)).toEqual((await exact.vectorSearch(BOT, SPACE, query, 10)).map((hit) => hit.chunkId));
    const chunksOfBot = new Set((await indexed.listChunks(BOT, { limit: 1_000 })).map((chunk) => chunk.chunkId));
    expect(found.every((hit) => chunksOfBot.has(hit.chunkId))).toBe(true);
  });

  it("a reindex into another space drops the old HNSW index and builds one in the new dimensions", async () => {
    const index = createPostgresSearchIndex({ pool, hnswThreshold: 20 });
    await index.replaceDocuments(BOT, SPACE, generatedDocuments(30, 8));
    const chunks = await index.listChunks(BOT, { limit: 1_000 });
    const NEW: EmbeddingSpace = { embedderId: "test-2", dimensions: 2 };
    await index.replaceEmbeddings(BOT, NEW, chunks.map((chunk, position) => ({ chunkId: chunk.chunkId, embedding: Float32Array.from([1, position]) })), { reset: true });
    const { rows } = await pool.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'search_chunks_hnsw_1'");
    expect(rows[0].indexdef).toContain("vector(2)");
    const hits = await index.vectorSearch(BOT, NEW, Float32Array.from([1, 0]), 3);
    expect(hits[0]!.chunkId).toBe(chunks[0]!.chunkId);
  });
});
