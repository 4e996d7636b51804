import { runSearchIndexContract } from "@parley/core/contract";
import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createPool, openPostgres } from "./postgres-database.js";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { startPgliteServer, type PgliteServer } from "./pglite-server.js";

// PGlite with pgvector: the machine's PostgreSQL has no pgvector, and PGlite runs the same SQL.
let server: PgliteServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPgliteServer();
  pool = createPool({ url: server.url, poolSize: 4 });
  await openPostgres({ pool, tracks: ["search"] });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.stop();
});

runSearchIndexContract({
  create: async () => {
    await pool.query("TRUNCATE search_documents, search_postings, search_terms, search_chunks, search_chatbots RESTART IDENTITY");
    return createPostgresSearchIndex({ pool });
  },
});
