import { chmodSync, closeSync, openSync, statSync } from "node:fs";

/** A database file and its permission bits, in octal (`"0644"`). */
export interface DatabaseFileMode {
  path: string;
  mode: string;
}

/** Database files that other local users could read or write when Parley opened them. */
export interface DatabaseFileModes {
  /** Made owner-only; `mode` is the mode they had before. */
  tightened: DatabaseFileMode[];
  /** Left as they are: this process may not change their mode (it is not their owner). */
  untouched: DatabaseFileMode[];
}

const OWNER_ONLY = 0o600;
const GROUP_AND_OTHERS = 0o077;

/**
 * Creates the database file owner-only (0600, whatever the umask) when it does not exist yet.
 * SQLite then gives its `-wal` and `-shm` files the database file's mode.
 */
export function createOwnerOnly(path: string): void {
  let descriptor: number;
  try {
    descriptor = openSync(path, "wx", OWNER_ONLY);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  closeSync(descriptor);
  // The umask may have taken owner bits away too (e.g. 0277); set the mode it was asked for.
  chmodSync(path, OWNER_ONLY);
}

/**
 * Removes group and other permissions from the database and its `-wal` and `-shm` files:
 * they hold every conversation, system prompt and webhook URL.
 */
export function tightenDatabaseFiles(path: string): DatabaseFileModes {
  const report: DatabaseFileModes = { tightened: [], untouched: [] };
  for (const file of [path, `${path}-wal`, `${path}-shm`]) {
    const mode = modeOf(file);
    if (mode === undefined || (mode & GROUP_AND_OTHERS) === 0) continue;
    const entry = { path: file, mode: mode.toString(8).padStart(4, "0") };
    try {
      chmodSync(file, mode & ~GROUP_AND_OTHERS);
      report.tightened.push(entry);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EPERM") throw error;
      report.untouched.push(entry);
      // A database another account owns and shares on purpose (with a group, say): SQLite gives
      // its -wal and -shm files the database's mode, and tightening ours would lock the others out.
      if (file === path) break;
    }
  }
  return report;
}

/** A file's permission bits; undefined when it does not exist. */
function modeOf(file: string): number | undefined {
  try {
    return statSync(file).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
