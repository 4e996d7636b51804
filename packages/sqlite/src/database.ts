import BetterSqlite3, { type Database } from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { createOwnerOnly, tightenDatabaseFiles, type DatabaseFileModes } from "./database-file-modes.js";
import { MIGRATIONS } from "./migrations/index.js";
import type { Migration } from "./migrations/migration.js";

/** The page cache of each connection, in KiB: SQLite's own default (see openDatabase). */
export const PAGE_CACHE_KIB = 2_000;

/** How to open Parley's database. */
export interface OpenDatabaseOptions {
  /** File path, or `:memory:`. */
  path: string;
  /** Milliseconds a writer waits for another connection's lock before failing. */
  busyTimeoutMs?: number;
  /** Open without migrating (for tools that must not change the file). */
  readonly?: boolean;
  /**
   * Told when the database or its `-wal`/`-shm` files were readable or writable by other local
   * users: which were made owner-only, and which this process could not change. Not called
   * when there was nothing to report.
   */
  onFileModes?: (report: DatabaseFileModes) => void;
}

/**
 * Opens (creating if needed) a Parley database: loads sqlite-vec, sets WAL, foreign keys, a
 * busy timeout and the page cache's size, and brings the schema up to date. A database written
 * by a newer Parley is refused rather than misread. Its files are owner-only (0600) whatever
 * the umask, and an existing database's files are made so on open.
 */
export function openDatabase(options: OpenDatabaseOptions): Database {
  const onDisk = options.path !== ":memory:" && options.path !== "" && !options.readonly;
  if (onDisk) {
    createOwnerOnly(options.path);
    // Before opening: SQLite gives the -wal and -shm files it creates the database file's mode.
    reportFileModes(tightenDatabaseFiles(options.path), options.onFileModes);
  }
  const database = new BetterSqlite3(options.path, { readonly: options.readonly ?? false });
  try {
    sqliteVec.load(database);
    if (options.path !== ":memory:" && !options.readonly) database.pragma("journal_mode = WAL");
    database.pragma("foreign_keys = ON");
    database.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    // WAL with synchronous=NORMAL is durable across process crashes; only an OS crash or power
    // loss can roll back the last commits, and never corrupts the file.
    database.pragma("synchronous = NORMAL");
    // SQLite's own page cache size (better-sqlite3 builds with 16 MiB): what a request reads
    // again and again is held above SQLite (the read cache, each chatbot's postings and int8
    // vectors), so the pages left are read once a chat, and the kernel's page cache serves them
    // as well. docs/operations.md, "Memory", has the measure.
    database.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    if (!options.readonly) migrate(database, MIGRATIONS);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

function reportFileModes(report: DatabaseFileModes, onFileModes: OpenDatabaseOptions["onFileModes"]): void {
  if (report.tightened.length + report.untouched.length > 0) onFileModes?.(report);
}

/** Applies every migration newer than the database's version, each in its own transaction. */
export function migrate(database: Database, migrations: readonly Migration[]): void {
  database.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  ) STRICT`);
  const current = schemaVersion(database);
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(
      `This database has schema version ${current}, newer than the ${latest} this version of Parley knows. Upgrade Parley to open it.`,
    );
  }
  const record = database.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)");
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    database.transaction(() => {
      // Read again under the write lock: another process opening the same new file at the
      // same moment may have applied this step since the check above.
      if (schemaVersion(database) >= migration.version) return;
      migration.up(database);
      record.run(migration.version, migration.name, Date.now() * 1000);
    }).immediate();
  }
}

/** The highest migration applied to the database (0 for a new one). */
export function schemaVersion(database: Database): number {
  const row = database.prepare("SELECT max(version) AS version FROM schema_version").get() as { version: number | null };
  return row.version ?? 0;
}
