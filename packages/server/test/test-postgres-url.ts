import { randomUUID } from "node:crypto";
import { createPool, pgvectorAvailable } from "@parley/postgres";
import { startPgliteServer } from "@parley/postgres/pglite";

/** The PostgreSQL server of `PARLEY_TEST_DATABASE_URL` (`.ci/run` sets it), or none. */
export const testDatabaseUrl = process.env.PARLEY_TEST_DATABASE_URL?.trim() || undefined;

/** A database URL for one test file, and what it runs on. */
export interface TestPostgres {
  /** A postgres:// URL whose connections use a schema of this file only. */
  url: string;
  /** The vector mode a new database gets there. */
  vectors: "pgvector" | "in-process";
  stop(): Promise<void>;
}

/**
 * A fresh schema on the test server, reached through a URL that sets its search_path, dropped by
 * `stop`; without a test server, a PGlite with pgvector (so the suite still runs, on PGlite).
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  if (testDatabaseUrl === undefined) {
    const pglite = await startPgliteServer();
    return { url: pglite.url, vectors: "pgvector", stop: () => pglite.stop() };
  }
  const schema = `parley_server_${randomUUID().replaceAll("-", "")}`;
  const setup = createPool({ url: testDatabaseUrl, poolSize: 1 });
  await setup.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(testDatabaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  const vectors = (await pgvectorAvailable(setup)) ? "pgvector" : "in-process";
  return {
    url: url.toString(),
    vectors,
    async stop() {
      await setup.query(`DROP SCHEMA ${schema} CASCADE`);
      await setup.end();
    },
  };
}
