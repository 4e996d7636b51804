import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import type { EmbeddingSpace } from "@parley/core";
import pg from "pg";
import { beforeEach, describe, expect, it } from "vitest";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { skipWithoutPostgres, testDatabaseUrl, useTestSchema } from "./test-postgres.js";
import { truncateSearch } from "./test-pglite.js";
import { CONCURRENCY_BOT } from "./test-search-corpus.js";

// Several connections on the real server at once: two processes ingesting into one chatbot, and
// searches while a document is replaced again and again.

const HERE = dirname(fileURLToPath(import.meta.url));

/** Runs the ingesting child on the schema of `pool`; resolves when it exits 0. */
function ingestInChild(url: string, schema: string, prefix: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "postgres-search-ingest-child.ts", url, schema, prefix], { cwd: HERE, stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`the ingesting child exited ${code}: ${stderr}`))));
  });
}

const schemaOf = (pool: pg.Pool) => /search_path=(\w+)/.exec(String((pool.options as { options?: string }).options))![1]!;

if (testDatabaseUrl === undefined) {
  skipWithoutPostgres("several connections on one chatbot");
} else {
  const url: string = testDatabaseUrl;
  const usePool = useTestSchema(url, ["search"], 4);
  let pool: pg.Pool;
  beforeEach(async () => {
    pool = usePool();
    await truncateSearch(pool);
  });

  describe("several connections on one chatbot (PostgreSQL server)", () => {
    it("two processes ingesting into one chatbot at once end with statistics that match the chunks exactly", async () => {
      await Promise.all([ingestInChild(url, schemaOf(pool), "a"), ingestInChild(url, schemaOf(pool), "b")]);
      const totals = (await pool.query(`SELECT b.chunk_count, b.total_length, (SELECT count(*) FROM search_chunks c WHERE c.bot = b.key) AS chunks,
          (SELECT coalesce(sum(length), 0) FROM search_chunks c WHERE c.bot = b.key) AS length FROM search_chatbots b WHERE b.chatbot_id = $1`, [CONCURRENCY_BOT])).rows[0];
      expect(totals.chunks).toBeGreaterThan(90);
      expect([totals.chunk_count, totals.total_length]).toEqual([totals.chunks, totals.length]);
      const { rows: terms } = await pool.query(`SELECT t.term, t.document_frequency, count(p.chunk_id) AS postings
        FROM search_terms t LEFT JOIN search_postings p ON p.bot = t.bot AND p.term = t.term GROUP BY t.term, t.document_frequency`);
      expect(terms.length).toBeGreaterThan(10);
      for (const row of terms) expect([row.term, row.document_frequency]).toEqual([row.term, row.postings]);
      // Each source once in the catalog, its chunk count that of its chunks; 40 + 40 + 10 sources.
      const { rows: documents } = await pool.query(`SELECT d.source, d.chunks, (SELECT count(*) FROM search_chunks c WHERE c.bot = d.bot AND c.source = d.source) AS stored
        FROM search_documents d`);
      expect(documents).toHaveLength(90);
      for (const row of documents) expect(row.chunks).toBe(row.stored);
    }, 60_000);

    it("a search during a reindex sees each version of a document whole, never half of it", async () => {
      const space: EmbeddingSpace = { embedderId: "test-3", dimensions: 3 };
      const bot = "d0d0d0d0-1111-4222-8333-444444444444";
      const version = (v: number) => ({
        source: "manual",
        title: "Manual",
        chunks: Array.from({ length: 8 }, (_, chunk) => ({ text: `zephyr kettle version${v} part ${chunk}`, embedding: Float32Array.from([1, chunk / 10, v / 100]) })),
      });
      const writerPool = new pg.Pool({ ...(pool.options as pg.PoolConfig), max: 2 });
      const writer = createPostgresSearchIndex({ pool: writerPool });
      const reader = createPostgresSearchIndex({ pool });
      await writer.replaceDocument(bot, space, version(0));
      let writing = true;
      const writes = (async () => {
        for (let v = 1; v <= 40; v += 1) await writer.replaceDocument(bot, space, version(v));
        writing = false;
      })();
      let searches = 0;
      while (writing) {
        const [keyword, vector] = await Promise.all([reader.keywordSearch(bot, "zephyr", 50), reader.vectorSearch(bot, space, Float32Array.from([1, 0.3, 0.2]), 50)]);
        const keywordVersions = new Set(keyword.map((hit) => /version(\d+)/.exec(hit.text)![1]));
        expect(keyword).toHaveLength(8);
        expect(keywordVersions.size).toBe(1);
        expect(new Set(vector.map((hit) => /version(\d+)/.exec(hit.text)![1])).size).toBeLessThanOrEqual(1);
        searches += 1;
      }
      await writes;
      await writerPool.end();
      expect(searches).toBeGreaterThan(0);
      const last = await reader.vectorSearch(bot, space, Float32Array.from([1, 0.3, 0.2]), 50);
      expect(last.map((hit) => /version(\d+)/.exec(hit.text)![1])).toEqual(Array(8).fill("40"));
    }, 60_000);
  });
}
