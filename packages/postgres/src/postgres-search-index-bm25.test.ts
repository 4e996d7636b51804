import type { EmbeddingSpace } from "@parley/core";
import { createSqliteSearchIndex, openDatabase } from "@parley/sqlite";
import type pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { generatedDocuments } from "./test-documents.js";
import { truncateSearch } from "./test-pglite.js";
import { useSearchDatabase } from "./test-search-database.js";

// What the contract cannot see: BM25 equal to SQLite's FTS5 bm25 on the same chunks, and
// statistics that stay exact through replaces and deletes (pgvector's HNSW: postgres-search-pgvector.test.ts).

const SPACE: EmbeddingSpace = { embedderId: "test-3", dimensions: 3 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";
const OTHER = "0b7e8d9c-1a2b-4c3d-8e4f-5a6b7c8d9e0f";

const usePool = useSearchDatabase().pool;
let pool: pg.Pool;
beforeEach(async () => {
  pool = usePool();
  await truncateSearch(pool);
});

describe("BM25 on PostgreSQL", () => {
  it("ranks and scores as SQLite's FTS5 bm25 on the same chunks", async () => {
    const corpus = generatedDocuments(60, 7);
    const postgres = createPostgresSearchIndex({ pool });
    const database = openDatabase({ path: ":memory:" });
    const sqlite = createSqliteSearchIndex({ database });
    try {
      await postgres.replaceDocuments(BOT, SPACE, corpus);
      await sqlite.replaceDocuments(BOT, SPACE, corpus);
      for (const query of ["refund", "courier europe", "battery charger cable", "warranty return order account"]) {
        const theirs = await sqlite.keywordSearch(BOT, query, 10);
        const ours = await postgres.keywordSearch(BOT, query, 10);
        expect(ours.map((hit) => hit.text)).toEqual(theirs.map((hit) => hit.text));
        ours.forEach((hit, index) => expect(hit.score).toBeCloseTo(theirs[index]!.score, 4));
      }
    } finally {
      database.close();
    }
  });

  it("keeps chunk count, total length and document frequencies equal to the chunks, through replaces and deletes", async () => {
    const index = createPostgresSearchIndex({ pool });
    await index.replaceDocuments(BOT, SPACE, generatedDocuments(40, 1));
    await index.replaceDocuments(BOT, SPACE, generatedDocuments(25, 2)); // replaces doc-0 … doc-24
    await index.replaceDocuments(OTHER, SPACE, generatedDocuments(10, 3));
    for (let document = 30; document < 40; document += 1) await index.deleteDocument(BOT, `doc-${document}.md`);
    await index.replaceDocument(BOT, SPACE, { source: "doc-3.md", title: "t", chunks: [] });
    const stored = await pool.query(`SELECT b.chatbot_id, b.chunk_count, b.total_length,
        (SELECT count(*) FROM search_chunks c WHERE c.bot = b.key) AS chunks,
        (SELECT coalesce(sum(length), 0) FROM search_chunks c WHERE c.bot = b.key) AS length
      FROM search_chatbots b ORDER BY b.key`);
    for (const row of stored.rows) {
      expect(row.chunk_count).toBe(row.chunks);
      expect(row.total_length).toBe(row.length);
    }
    const frequencies = await pool.query(`SELECT t.bot, t.term, t.document_frequency, count(p.chunk_id) AS postings
      FROM search_terms t LEFT JOIN search_postings p ON p.bot = t.bot AND p.term = t.term GROUP BY t.bot, t.term, t.document_frequency`);
    expect(frequencies.rows.length).toBeGreaterThan(10);
    for (const row of frequencies.rows) expect([row.term, row.document_frequency]).toEqual([row.term, row.postings]);
    expect(frequencies.rows.every((row) => row.document_frequency > 0)).toBe(true);
  });
});
