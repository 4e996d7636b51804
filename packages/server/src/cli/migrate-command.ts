import { existsSync } from "node:fs";
import { optional, UsageError, type Command } from "./command.js";

/** `parley migrate [--from PATH]`: brings the database's schema up to date, optionally copying a SQLite database into it. */
export const MIGRATE_COMMAND: Command = {
  name: "migrate",
  usage: "parley migrate [--from SQLITE_PATH]",
  summary:
    "Bring the database (PARLEY_DATABASE_URL, else the SQLite file) up to date with this version of Parley, and print its schema versions. " +
    "--from copies a SQLite database's data into an empty PostgreSQL.",
  options: { from: { type: "string" } },
  positionals: { min: 0, max: 0 },
  // Opening the runtime already migrated (every command does, under a lock): report what it holds now.
  async run(input, { runtime }) {
    const from = optional(input, "from");
    if (from === undefined) return { engine: runtime.engine, schema: await runtime.schemaVersions() };
    if (runtime.copyFromSqlite === undefined) throw new UsageError("--from copies into PostgreSQL: set PARLEY_DATABASE_URL.");
    if (!existsSync(from)) throw new UsageError(`--from: no SQLite database at ${from}.`);
    const copied = await runtime.copyFromSqlite(from);
    return { engine: runtime.engine, schema: await runtime.schemaVersions(), copied };
  },
};
