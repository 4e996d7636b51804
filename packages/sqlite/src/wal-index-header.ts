import type { Database } from "better-sqlite3";
import { closeSync, openSync, readSync } from "node:fs";
import { endianness } from "node:os";

/** The wal-index header's size, and the version SQLite writes in its first field. */
const HEADER_BYTES = 48;
const WALINDEX_VERSION = 3007000;

/**
 * The header of a WAL database's wal-index, read straight from its `-shm` file (SQLite's file
 * format, https://www.sqlite.org/walformat.html §2.1): every commit of any connection, in any
 * process, rewrites it, and its `iChange` field counts the commits that changed the database.
 * One `pread` of 48 bytes; `PRAGMA data_version` tells the same through a read transaction,
 * which takes and releases WAL's shared lock (several system calls) each time.
 */
export interface WalIndexHeader {
  /** Reads the header now into `into` (48 bytes). */
  read(into: Buffer): void;
  /** Closes the file (once; again does nothing). */
  close(): void;
}

/** The commit counter (`iChange`) of a header as read. */
export function commitCount(header: Buffer): number {
  return field(header, 8);
}

/** A new buffer for a header. */
export function headerBuffer(): Buffer {
  return Buffer.alloc(HEADER_BYTES);
}

/** A 32-bit field of a header: the wal-index is in the machine's own byte order. */
const field = endianness() === "LE" ? (header: Buffer, offset: number) => header.readUInt32LE(offset) : (header: Buffer, offset: number) => header.readUInt32BE(offset);

/**
 * The wal-index header of `database`'s main file, or null when it has none to read: not in WAL
 * mode (`:memory:`, a read-only file left in another mode), or a `-shm` file this process cannot
 * open, or one that does not hold a header SQLite initialised (then `PRAGMA data_version` must do).
 * The file is the one SQLite itself maps: its main database's path as SQLite resolved it
 * (`PRAGMA database_list`), followed by `-shm`.
 */
export function openWalIndexHeader(database: Database): WalIndexHeader | null {
  if (database.memory || String(database.pragma("journal_mode", { simple: true })).toLowerCase() !== "wal") return null;
  const main = (database.pragma("database_list") as { name: string; file: string }[]).find((row) => row.name === "main");
  if (!main?.file) return null;
  let fd: number;
  try {
    fd = openSync(`${main.file}-shm`, "r");
  } catch {
    return null;
  }
  let open = true;
  const header: WalIndexHeader = {
    read(into) {
      readSync(fd, into, 0, HEADER_BYTES, 0);
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
  const first = headerBuffer();
  header.read(first);
  // iVersion (offset 0) as SQLite writes it, and isInit (the byte at 12) set.
  if (field(first, 0) !== WALINDEX_VERSION || first[12] !== 1) {
    header.close();
    return null;
  }
  return header;
}
