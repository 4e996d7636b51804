import type pg from "pg";
import { testDatabaseUrl, useTestSchema } from "./test-postgres.js";
import { usePglite } from "./test-pglite.js";

/**
 * The database a search suite runs on: a schema of its own on the server of
 * `PARLEY_TEST_DATABASE_URL` (`.ci/run` sets it; its mode is whatever that server supports, on
 * this machine in-process), else a PGlite with pgvector, so the suite still runs without a server.
 */
export function useSearchDatabase(poolSize = 4): { pool: () => pg.Pool; where: string } {
  if (testDatabaseUrl !== undefined) return { pool: useTestSchema(testDatabaseUrl, ["search"], poolSize), where: "the PostgreSQL server" };
  return { pool: usePglite(poolSize), where: "PGlite" };
}
