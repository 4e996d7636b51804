import type { Command } from "./command.js";

/** `parley migrate`: brings the database's schema up to date and reports its versions. */
export const MIGRATE_COMMAND: Command = {
  name: "migrate",
  usage: "parley migrate",
  summary: "Bring the database (PARLEY_DATABASE_URL, else the SQLite file) up to date with this version of Parley, and print its schema versions.",
  options: {},
  positionals: { min: 0, max: 0 },
  // Opening the runtime already migrated (every command does, under a lock): report what it holds now.
  async run(_input, { runtime }) {
    return { engine: runtime.engine, schema: await runtime.schemaVersions() };
  },
};
