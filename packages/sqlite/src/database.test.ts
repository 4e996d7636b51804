import BetterSqlite3 from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseFileModes } from "./database-file-modes.js";
import { openDatabase, PAGE_CACHE_KIB } from "./database.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, "0");
const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];
/** The uid and gid of the account `nobody`. */
const NOBODY = 65534;

// The usual umask, which lets SQLite create files every local user can read.
let previousUmask: number;
beforeEach(() => {
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
});

describe("the connection's settings", () => {
  it("holds SQLite's default page cache, 2,000 KiB, not better-sqlite3's 16 MiB, on a new and on a read-only connection", () => {
    const path = freshPath();
    expect(PAGE_CACHE_KIB).toBe(2_000);
    const writer = track(openDatabase({ path }));
    const reader = track(openDatabase({ path, readonly: true }));
    // Negative: a size in KiB rather than in pages.
    expect([writer.pragma("cache_size", { simple: true }), reader.pragma("cache_size", { simple: true })]).toEqual([-2_000, -2_000]);
    // What the setting changes: better-sqlite3's own default.
    expect(track(new BetterSqlite3(":memory:")).pragma("cache_size", { simple: true })).toBe(-16_000);
  });
});

describe("database file modes", () => {
  it("creates the database and its -wal and -shm files owner-only (0600) under a umask of 022, and reports nothing", () => {
    const path = freshPath();
    const reports: DatabaseFileModes[] = [];
    const database = track(openDatabase({ path, onFileModes: (report) => reports.push(report) }));
    database.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('a conversation')");
    expect(databaseFiles(path).map((file) => [file, existsSync(file) && modeOf(file)])).toEqual(databaseFiles(path).map((file) => [file, "0600"]));
    expect(reports).toEqual([]);
  });

  it("tightens an existing 0644 database and its -wal and -shm files to 0600, and reports each with its old mode", () => {
    const path = freshPath();
    // Another connection keeps the -wal and -shm files in place, as a server still running would.
    const other = track(new BetterSqlite3(path));
    other.pragma("journal_mode = WAL");
    other.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('a conversation')");
    for (const file of databaseFiles(path)) chmodSync(file, 0o644);
    chmodSync(`${path}-shm`, 0o664);

    const reports: DatabaseFileModes[] = [];
    track(openDatabase({ path, onFileModes: (report) => reports.push(report) }));

    expect(databaseFiles(path).map(modeOf)).toEqual(["0600", "0600", "0600"]);
    expect(reports).toEqual([
      {
        tightened: [
          { path, mode: "0644" },
          { path: `${path}-wal`, mode: "0644" },
          { path: `${path}-shm`, mode: "0664" },
        ],
        untouched: [],
      },
    ]);
  });

  it("changes no mode on a read-only open", () => {
    const path = freshPath();
    track(openDatabase({ path })).close();
    chmodSync(path, 0o644);
    const reports: DatabaseFileModes[] = [];
    track(openDatabase({ path, readonly: true, onFileModes: (report) => reports.push(report) }));
    expect(modeOf(path)).toBe("0644");
    expect(reports).toEqual([]);
  });

  // A process may change the mode of its own files only: the database belongs to another account
  // (nobody), and the child opening it runs without CAP_FOWNER, the capability that lets root
  // change anyone's files, so its chmod is refused as any non-owner's is. Only root can set this
  // up. The child keeps root's right to read: a clone in a private (0700) folder, out of other
  // accounts' reach, still loads its modules.
  it.skipIf(process.getuid?.() !== 0)("leaves a database another account owns as it is, -wal and -shm included, and reports it untouched", { timeout: 30_000 }, () => {
    const folder = mkdtempSync(join(tmpdir(), "parley-shared-db-"));
    try {
      chmodSync(folder, 0o777);
      const path = join(folder, "shared.db");
      track(openDatabase({ path })).close();
      chmodSync(path, 0o666);
      chownSync(path, NOBODY, NOBODY);
      const script = `import { statSync } from "node:fs";
        import { openDatabase } from ${JSON.stringify(fileURLToPath(new URL("./database.ts", import.meta.url)))};
        const database = openDatabase({ path: ${JSON.stringify(path)}, onFileModes: (report) => console.log(JSON.stringify(report)) });
        const files = ["-wal", "-shm"].map((suffix) => statSync(${JSON.stringify(path)} + suffix));
        console.log(JSON.stringify(files.map((file) => [(file.mode & 0o777).toString(8), file.uid])));
        database.close();`;
      const child = spawnSync(
        "setpriv",
        ["--bounding-set=-fowner", "--inh-caps=-fowner", "--", process.execPath, "--conditions=source", "--import", "tsx", "--input-type=module", "-e", script],
        { encoding: "utf8" },
      );
      expect(child.error).toBeUndefined();
      expect(child.stderr).toBe("");
      expect(child.stdout.trim().split("\n").map((line) => JSON.parse(line) as unknown)).toEqual([
        { tightened: [], untouched: [{ path, mode: "0666" }] },
        // SQLite gives the files it adds the database's mode and owner.
        [["666", NOBODY], ["666", NOBODY]],
      ]);
      expect(modeOf(path)).toBe("0666");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
