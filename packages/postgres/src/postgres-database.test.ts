import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { MIGRATIONS, schemaVersion } from "./migrations/migrate.js";
import { isParleyError } from "@parley/core";
import { createPool, openPostgres, UNPREPARED_PARAMETER } from "./postgres-database.js";
import { inTransaction } from "./postgres-transaction.js";
import { STORAGE_SQL } from "./postgres-storage-statements.js";
import { PostgresSetupError } from "./postgres-setup-error.js";
import { skipWithoutPostgres, startSilenceableRelay, testDatabaseUrl, useTestSchema } from "./test-postgres.js";

/** A port on 127.0.0.1 where nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("opening PostgreSQL", () => {
  it("fails with a clear message, the password hidden, when the database cannot be reached", async () => {
    const port = await closedPort();
    const error = await openPostgres({ url: `postgres://parley:hunter2@127.0.0.1:${port}/parley` }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PostgresSetupError);
    expect((error as Error).message).toMatch(new RegExp(`^Cannot connect to PostgreSQL at postgres://parley:\\*\\*\\*@127\\.0\\.0\\.1:${port}/parley: `));
    expect((error as Error).message).not.toContain("hunter2");
  });
});

if (testDatabaseUrl === undefined) {
  skipWithoutPostgres("migrations on a PostgreSQL server");
} else {
  const url = testDatabaseUrl;
  const pool = useTestSchema(url, ["storage"]);

  describe("a PostgreSQL server that stops answering", () => {
    it("fails a query and a transaction as unavailable once the statement timeout and its margin passed, and discards their connections", async () => {
      const relay = await startSilenceableRelay(url);
      const hung = createPool({ url: relay.url, poolSize: 2, statementTimeoutMs: 200 });
      try {
        // Both connections open and idle in the pool, so each request below takes one of them.
        await Promise.all([hung.query("SELECT pg_sleep(0.05)"), inTransaction(hung, (client) => client.query("SELECT pg_sleep(0.05)"))]);
        expect(hung.idleCount).toBe(2);
        relay.silence();
        const [query, transaction] = await Promise.all([
          hung.query("SELECT 1").catch((caught: unknown) => caught),
          inTransaction(hung, (client) => client.query("SELECT 1")).catch((caught: unknown) => caught),
        ]);
        for (const error of [query, transaction]) {
          expect(isParleyError(error, "unavailable")).toBe(true);
          expect((error as { detail: string }).detail).toBe("The database is unavailable. Try again shortly.");
        }
        expect(hung.totalCount).toBe(0);
      } finally {
        await relay.close();
        await hung.end();
      }
    });
  });

  describe("migrations on a PostgreSQL server", () => {
    it("records each migration of the storage track once, however many servers open at once", async () => {
      const schema = (await pool().query<{ schema: string }>("SELECT current_schema() AS schema")).rows[0]!.schema;
      const pools = Array.from({ length: 3 }, () => createPool({ url, poolSize: 2, schema }));
      await Promise.all(pools.map((each) => openPostgres({ pool: each, tracks: ["storage"] })));
      await Promise.all(pools.map((each) => each.end()));
      const { rows } = await pool().query("SELECT track, version, name FROM schema_version ORDER BY track, version");
      expect(rows).toEqual(MIGRATIONS.storage.map((migration) => ({ track: "storage", version: migration.version, name: migration.name })));
    });

    it("refuses a database migrated by a newer Parley, saying so", async () => {
      const latest = MIGRATIONS.storage.at(-1)!.version;
      await pool().query("INSERT INTO schema_version (track, version, name, applied_at) VALUES ('storage', $1, 'from the future', 0)", [latest + 1]);
      try {
        await expect(openPostgres({ pool: pool(), tracks: ["storage"] })).rejects.toThrow(
          new PostgresSetupError(`This database has storage schema version ${latest + 1}, newer than the ${latest} this version of Parley knows. Upgrade Parley to open it.`),
        );
      } finally {
        await pool().query("DELETE FROM schema_version WHERE track = 'storage' AND version = $1", [latest + 1]);
      }
      expect(await schemaVersion(pool(), "storage")).toBe(latest);
    });

    // Whichever server the tests run on, one of the two outcomes is asserted: never neither.
    it("migrates the search track with pgvector where the server has it, else in process, refusing pgvector when asked", async () => {
      const { rows } = await pool().query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      if (rows.length > 0) {
        expect((await openPostgres({ pool: pool(), tracks: ["search"] })).vectors).toBe("pgvector");
        expect(await schemaVersion(pool(), "search")).toBe(MIGRATIONS.search.at(-1)!.version);
        return;
      }
      await expect(openPostgres({ pool: pool(), tracks: ["search"], vectors: "pgvector" })).rejects.toThrow(/^PostgreSQL has no pgvector extension\. Install pgvector/);
      expect(await schemaVersion(pool(), "search")).toBe(0);
      const opened = await openPostgres({ pool: pool(), tracks: ["search"] });
      expect(opened.vectors).toBe("in-process");
      expect(await schemaVersion(pool(), "search")).toBe(MIGRATIONS.search.at(-1)!.version);
      const column = await pool().query("SELECT data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'search_chunks' AND column_name = 'embedding'");
      expect(column.rows).toEqual([{ data_type: "bytea" }]);
    });
  });

  // Planning a statement cost more PostgreSQL CPU than running it (docs/scaling.md): each
  // connection prepares Parley's statements once, unless the URL says its connections share a session.
  describe("prepared statements", () => {
    const preparedNames = async (connectionString: string) => {
      const schema = (await pool().query<{ schema: string }>("SELECT current_schema() AS schema")).rows[0]!.schema;
      const single = createPool({ url: connectionString, poolSize: 1, schema });
      try {
        await single.query(STORAGE_SQL.getPlan, ["free"]);
        await single.query(STORAGE_SQL.getPlan, ["pro"]);
        return (await single.query<{ name: string }>("SELECT name FROM pg_prepared_statements ORDER BY name")).rows.map((row) => row.name);
      } finally {
        await single.end();
      }
    };

    it("prepares each statement once per connection, under its name", async () => {
      expect(await preparedNames(url)).toEqual([STORAGE_SQL.getPlan.name]);
    });

    it(`prepares none on a URL with ${UNPREPARED_PARAMETER}=off, which reaches the server without it`, async () => {
      const unprepared = new URL(url);
      unprepared.searchParams.set(UNPREPARED_PARAMETER, "off");
      expect(await preparedNames(unprepared.toString())).toEqual([]);
    });
  });
}
