// The search index the eval measures: SQLite in a temporary file (the default), or PostgreSQL
// (`--store postgres`) on PARLEY_DATABASE_URL (pgvector where the server has it, else in-process
// vectors), or on an in-memory PGlite with pgvector when unset.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SearchIndex } from "@parley/core";
import { createPool, createPostgresSearchIndex, openPostgres } from "@parley/postgres";
import { startPgliteServer } from "@parley/postgres/pglite";
import { createSqliteSearchIndex, openDatabase } from "@parley/sqlite";

/** A search index for the eval, what it runs on, and how to remove it. */
export interface EvalStore {
  searchIndex: SearchIndex;
  description: string;
  close(): Promise<void>;
}

/** Opens the store named by `--store`; the SQLite options apply to SQLite only, the title weight to both. */
export async function openEvalStore(store: string, options: { titleWeight?: number; postingBudget?: number }): Promise<EvalStore> {
  if (store === "sqlite") {
    const directory = mkdtempSync(join(tmpdir(), "parley-eval-"));
    const database = openDatabase({ path: join(directory, "eval.db") });
    const searchIndex = createSqliteSearchIndex({
      database,
      ...(options.titleWeight === undefined ? {} : { titleWeight: options.titleWeight }),
      ...(options.postingBudget === undefined ? {} : { keywordPostingBudget: options.postingBudget }),
    });
    return { searchIndex, description: "SQLite (FTS5 bm25, sqlite-vec)", close: async () => { database.close(); rmSync(directory, { recursive: true, force: true }); } };
  }
  if (store !== "postgres") throw new Error(`--store must be sqlite or postgres (got "${store}")`);
  const url = process.env.PARLEY_DATABASE_URL?.trim();
  const pglite = url ? undefined : await startPgliteServer();
  // A schema of its own on a real server, dropped afterwards, so the eval never touches Parley's tables.
  const schema = `parley_eval_${process.pid}`;
  if (url) {
    const setup = createPool({ url, poolSize: 1 });
    await setup.query(`CREATE SCHEMA ${schema}`);
    await setup.end();
  }
  const pool = createPool({ url: url || pglite!.url, poolSize: 4, statementTimeoutMs: 0, ...(url ? { schema } : {}) });
  const { vectors } = await openPostgres({ pool, tracks: ["search"] });
  const searchIndex = createPostgresSearchIndex({ pool, ...(options.titleWeight === undefined ? {} : { titleWeight: options.titleWeight }) });
  const description = `${url ? "PostgreSQL at PARLEY_DATABASE_URL" : "PGlite"} (BM25 in SQL, vectors: ${vectors})`;
  return {
    searchIndex,
    description,
    async close() {
      if (url) await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
      await pglite?.stop();
    },
  };
}
