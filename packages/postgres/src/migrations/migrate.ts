import type pg from "pg";
import { inTransaction } from "../postgres-transaction.js";
import { PostgresSetupError } from "../postgres-setup-error.js";
import { SEARCH_MIGRATIONS } from "./search-migrations.js";
import { STORAGE_MIGRATIONS } from "./storage-migrations.js";

/** One forward-only schema step of a track. Versions are consecutive integers from 1. */
export interface PostgresMigration {
  version: number;
  name: string;
  /** Runs inside the transaction that records the version. */
  up(client: pg.PoolClient): Promise<void>;
}

/**
 * The two parts of the schema, migrated apart: `storage` needs plain PostgreSQL, `search`
 * needs pgvector. So the Storage adapter runs on a PostgreSQL without pgvector (as in tests),
 * and the server, which needs both, checks both.
 */
export type MigrationTrack = "storage" | "search";

/** Every migration of each track, in order. Append only: never edit one that has shipped. */
export const MIGRATIONS: Readonly<Record<MigrationTrack, readonly PostgresMigration[]>> = {
  storage: STORAGE_MIGRATIONS,
  search: SEARCH_MIGRATIONS,
};

// Held for the duration of one migration's transaction: several servers starting at once
// apply each step once, one after the other. The number is Parley's own (arbitrary, fixed).
const MIGRATION_LOCK = 7_461_220_013;

/** The highest version of a track applied to the database (0 for none). */
export async function schemaVersion(pool: pg.Pool | pg.PoolClient, track: MigrationTrack): Promise<number> {
  const { rows } = await pool.query<{ version: number | null }>("SELECT max(version)::int AS version FROM schema_version WHERE track = $1", [track]);
  return rows[0]?.version ?? 0;
}

/**
 * Applies every migration newer than the database's version, each in its own transaction under
 * an advisory lock. Refuses a database whose version is newer than this code knows, and says
 * so when the search track needs pgvector and the server lacks it.
 */
export async function migratePostgres(pool: pg.Pool, tracks: readonly MigrationTrack[] = ["storage", "search"]): Promise<{ applied: string[] }> {
  await pool.query(`CREATE TABLE IF NOT EXISTS schema_version (
    track TEXT NOT NULL,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    applied_at BIGINT NOT NULL,
    PRIMARY KEY (track, version)
  )`).catch(async (error: unknown) => {
    // Two servers creating the table at the same moment: one wins, the other finds it there.
    if ((error as { code?: string }).code !== "23505") throw error;
  });
  const applied: string[] = [];
  for (const track of tracks) {
    const migrations = MIGRATIONS[track];
    const latest = migrations.at(-1)?.version ?? 0;
    const current = await schemaVersion(pool, track);
    if (current > latest) {
      throw new PostgresSetupError(
        `This database has ${track} schema version ${current}, newer than the ${latest} this version of Parley knows. Upgrade Parley to open it.`,
      );
    }
    if (track === "search" && current < latest) await requirePgvector(pool);
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      if (await applyOne(pool, track, migration)) applied.push(`${track} ${migration.version} ${migration.name}`);
    }
  }
  return { applied };
}

async function applyOne(pool: pg.Pool, track: MigrationTrack, migration: PostgresMigration): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    // Read again under the lock: another server may have applied this step meanwhile.
    if ((await schemaVersion(client, track)) >= migration.version) return false;
    await migration.up(client);
    await client.query("INSERT INTO schema_version (track, version, name, applied_at) VALUES ($1, $2, $3, $4)", [
      track,
      migration.version,
      migration.name,
      Date.now() * 1000,
    ]);
    return true;
  });
}

/** Fails with a clear message unless pgvector is installed or installable on the server. */
async function requirePgvector(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  if (rows.length === 0) {
    throw new PostgresSetupError(
      "PostgreSQL has no pgvector extension, which Parley's search index needs. Install pgvector on the server (e.g. the pgvector/pgvector image or the postgresql-NN-pgvector package).",
    );
  }
}
