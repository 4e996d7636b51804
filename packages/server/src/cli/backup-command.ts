import { chmodSync, closeSync, constants, copyFileSync, existsSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { keyFilePath } from "../runtime/webhook-master-key.js";
import { required, UsageError, type Command } from "./command.js";
import type { SqliteRuntime } from "../runtime/open-parley.js";

/**
 * `parley backup --to FILE`: a consistent copy of a database that a server may be writing, with
 * SQLite's online backup (docs/operations.md, "Backups"). The copy is written beside FILE and
 * renamed into place when whole, so FILE is never a half-written database.
 */
export const BACKUP_COMMAND: Command = {
  name: "backup",
  usage: "parley backup --to FILE",
  summary: "Write a consistent copy of the database (safe while `parley serve` runs) to FILE, and its webhook key file to FILE.key.",
  options: { to: { type: "string" } },
  positionals: { min: 0, max: 0 },
  async run(input, { runtime, config }) {
    const to = required(input, "to");
    // PostgreSQL has its own tools (pg_dump, base backups): this command copies a SQLite file.
    if (runtime.engine !== "sqlite") throw new UsageError("parley backup copies a SQLite database; back up PostgreSQL with its own tools (pg_dump).");
    if (existsSync(to)) throw new UsageError(`--to ${to} exists; remove it or choose another file.`);
    const partial = `${to}.partial-${process.pid}`;
    try {
      // The copy holds every conversation and key hash: owner-only from its first byte, as the
      // database itself is, whatever the umask (SQLite keeps the mode of a file that exists).
      closeSync(openSync(partial, "wx", 0o600));
      chmodSync(partial, 0o600);
      // All remaining pages in one step: a write by the server between steps would restart the copy,
      // so small steps under a steady chat load might never finish. A reader does not block WAL writers.
      const { totalPages } = await (runtime as SqliteRuntime).database.backup(partial, { progress: () => 2 ** 30 });
      renameSync(partial, to);
      // Webhook signing secrets derive from the key file: a restored database needs it too.
      const keyFile = keyFilePath(config.databasePath);
      const copiedKey = config.secretKey === undefined && existsSync(keyFile);
      if (copiedKey) {
        copyFileSync(keyFile, keyFilePath(to), constants.COPYFILE_EXCL);
        chmodSync(keyFilePath(to), 0o600);
      }
      return { to, bytes: statSync(to).size, pages: totalPages, key_file: copiedKey ? keyFilePath(to) : null };
    } finally {
      rmSync(partial, { force: true });
    }
  },
};
