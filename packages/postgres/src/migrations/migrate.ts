import type pg from "pg";
import { inTransaction } from "../postgres-transaction.js";
import { PostgresSetupError } from "../postgres-setup-error.js";
import { noPgvector, pgvectorAvailable, vectorMode, type VectorMode } from "../postgres-vector-mode.js";
import { SEARCH_MIGRATIONS } from "./search-migrations.js";
import { STORAGE_MIGRATIONS } from "./storage-migrations.js";
import type { MigrationContext, PostgresMigration } from "./postgres-migration.js";

export type { MigrationContext, PostgresMigration } from "./postgres-migration.js";

/** Options of a migration run. */
export interface MigrateOptions {
  /**
   * The vector mode a database gets when its search schema is created (default: `pgvector`
   * when the server has it, else `in-process`). A database already migrated keeps its mode.
   */
  vectors?: VectorMode;
}

/**
 * The two parts of the schema, migrated apart: `storage` (Storage port) and `search`
 * (SearchIndex port), so each adapter can bring up only its own tables (as tests do).
 */
export type MigrationTrack = "storage" | "search";

/** Every migration of each track, in order. Append only: never edit one that has shipped. */
export const MIGRATIONS: Readonly<Record<MigrationTrack, readonly PostgresMigration[]>> = {
  storage: STORAGE_MIGRATIONS,
  search: SEARCH_MIGRATIONS,
};

// Held for the duration of one migration's transaction: several servers starting at once
// apply each step once, one after the other. The number is Parley's own (arbitrary, fixed).
export const MIGRATION_LOCK = 7_461_220_013;

/** The highest version of a track applied to the database (0 for none). */
export async function schemaVersion(pool: pg.Pool | pg.PoolClient, track: MigrationTrack): Promise<number> {
  const { rows } = await pool.query<{ version: number | null }>("SELECT max(version)::int AS version FROM schema_version WHERE track = $1", [track]);
  return rows[0]?.version ?? 0;
}

/**
 * Applies every migration newer than the database's version, each in its own transaction under
 * an advisory lock. Refuses a database whose version is newer than this code knows, and one
 * asked for pgvector on a server without it. Returns the steps applied and the vector mode
 * (when the search track exists).
 */
export async function migratePostgres(
  pool: pg.Pool,
  tracks: readonly MigrationTrack[] = ["storage", "search"],
  options: MigrateOptions = {},
): Promise<{ applied: string[]; vectors: VectorMode | undefined }> {
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
    const context = { vectors: track === "search" ? await chooseVectors(pool, options.vectors) : "in-process" } satisfies MigrationContext;
    for (const migration of migrations) {
      if (migration.version <= current) continue;
      if (await applyOne(pool, track, migration, context)) applied.push(`${track} ${migration.version} ${migration.name}`);
    }
  }
  return { applied, vectors: await vectorMode(pool) };
}

/** The mode of the database when it has one, else the one asked for, else pgvector where the server has it. */
async function chooseVectors(pool: pg.Pool, requested: VectorMode | undefined): Promise<VectorMode> {
  const existing = await vectorMode(pool);
  if (existing !== undefined) return existing;
  const available = await pgvectorAvailable(pool);
  if (requested === "pgvector" && !available) throw noPgvector();
  return requested ?? (available ? "pgvector" : "in-process");
}

async function applyOne(pool: pg.Pool, track: MigrationTrack, migration: PostgresMigration, context: MigrationContext): Promise<boolean> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    // Read again under the lock: another server may have applied this step meanwhile.
    if ((await schemaVersion(client, track)) >= migration.version) return false;
    await migration.up(client, context);
    await client.query("INSERT INTO schema_version (track, version, name, applied_at) VALUES ($1, $2, $3, $4)", [
      track,
      migration.version,
      migration.name,
      Date.now() * 1000,
    ]);
    return true;
  });
}
