import type pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { createPool, openPostgres } from "./postgres-database.js";
import { startPgliteServer, type PgliteServer } from "./pglite-server.js";
import type { VectorMode } from "./postgres-vector-mode.js";

/**
 * A PGlite with pgvector for one test file, migrated (search track, in the mode given, else
 * pgvector), stopped after the file: the machine's PostgreSQL has no pgvector, PGlite has. Returns a getter of the pool.
 */
export function usePglite(poolSize = 2, vectors?: VectorMode): () => pg.Pool {
  let server: PgliteServer;
  let pool: pg.Pool;
  beforeAll(async () => {
    server = await startPgliteServer();
    pool = createPool({ url: server.url, poolSize });
    await openPostgres({ pool, tracks: ["search"], ...(vectors === undefined ? {} : { vectors }) });
  }, 60_000);
  afterAll(async () => {
    await pool?.end();
    await server?.stop();
  });
  return () => pool;
}

/** Empties every search table, so a test starts from nothing. */
export async function truncateSearch(pool: pg.Pool): Promise<void> {
  await pool.query("TRUNCATE search_documents, search_postings, search_terms, search_chunks, search_chatbots RESTART IDENTITY");
}
