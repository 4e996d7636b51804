import { existsSync } from "node:fs";
import { optional, UsageError, type Command } from "./command.js";

/**
 * `parley migrate [--from PATH] [--vectors pgvector]`: brings the database's schema up to date and
 * prints its schema versions (and, on PostgreSQL, its vector mode); optionally copies a SQLite
 * database into it, or moves its vectors from in process to pgvector (docs/scaling.md).
 */
export const MIGRATE_COMMAND: Command = {
  name: "migrate",
  usage: "parley migrate [--from SQLITE_PATH] [--vectors pgvector]",
  summary:
    "Bring the database (PARLEY_DATABASE_URL, else the SQLite file) up to date with this version of Parley, and print its schema versions " +
    "and, on PostgreSQL, where vectors are searched (\"vectors\": \"pgvector\" or \"in-process\"). " +
    "--from copies a SQLite database's data into an empty PostgreSQL. --vectors pgvector moves a PostgreSQL database's vectors to pgvector once the extension is installed.",
  options: { from: { type: "string" }, vectors: { type: "string" } },
  positionals: { min: 0, max: 0 },
  // Opening the runtime already migrated (every command does, under a lock): report what it holds now.
  async run(input, { runtime }) {
    const from = optional(input, "from");
    const vectors = optional(input, "vectors");
    if (vectors !== undefined && vectors !== "pgvector") throw new UsageError(`--vectors: only pgvector (got "${vectors}"): a database moves from in-process vectors to pgvector, never back.`);
    if (vectors !== undefined && runtime.moveToPgvector === undefined) throw new UsageError("--vectors moves a PostgreSQL database: set PARLEY_DATABASE_URL.");
    if (from !== undefined && runtime.copyFromSqlite === undefined) throw new UsageError("--from copies into PostgreSQL: set PARLEY_DATABASE_URL.");
    if (from !== undefined && !existsSync(from)) throw new UsageError(`--from: no SQLite database at ${from}.`);
    const copied = from === undefined ? undefined : await runtime.copyFromSqlite!(from);
    const moved = vectors === undefined ? undefined : await runtime.moveToPgvector!();
    const mode = runtime.vectors === undefined ? {} : { vectors: await runtime.vectors() };
    return {
      engine: runtime.engine,
      schema: await runtime.schemaVersions(),
      ...mode,
      ...(copied === undefined ? {} : { copied }),
      ...(moved === undefined ? {} : { moved: moved?.moved ?? 0 }),
    };
  },
};
