import BetterSqlite3 from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DatabaseFileModes } from "./database-file-modes.js";
import { openDatabase } from "./database.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, "0");
const databaseFiles = (path: string) => [path, `${path}-wal`, `${path}-shm`];

// The usual umask, which lets SQLite create files every local user can read.
let previousUmask: number;
beforeEach(() => {
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
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

  // Only root can open a database as another account, the one case where chmod is refused. The
  // child loads its modules as root, then drops to the account `nobody` before it opens the
  // database: a clone in a private (0700) folder stays out of that account's reach, so nothing
  // may be loaded after the switch.
  it.skipIf(process.getuid?.() !== 0)("leaves a database another account owns as it is, -wal and -shm included, and reports it untouched", { timeout: 30_000 }, () => {
    const folder = mkdtempSync(join(tmpdir(), "parley-shared-db-"));
    try {
      chmodSync(folder, 0o777);
      const path = join(folder, "shared.db");
      track(openDatabase({ path })).close();
      chmodSync(path, 0o666);
      const script = `import { statSync } from "node:fs";
        import { openDatabase } from ${JSON.stringify(fileURLToPath(new URL("./database.ts", import.meta.url)))};
        openDatabase({ path: ":memory:" }).close(); // loads better-sqlite3 and sqlite-vec while their files are readable
        process.setgroups([65534]);
        process.setgid(65534);
        process.setuid(65534);
        console.log(JSON.stringify([process.getuid(), process.getgid()]));
        const database = openDatabase({ path: ${JSON.stringify(path)}, onFileModes: (report) => console.log(JSON.stringify(report)) });
        const modes = ["-wal", "-shm"].map((suffix) => (statSync(${JSON.stringify(path)} + suffix).mode & 0o777).toString(8));
        console.log(JSON.stringify(modes));
        database.close();`;
      const child = spawnSync(process.execPath, ["--conditions=source", "--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
      expect(child.stderr).toBe("");
      expect(child.stdout.trim().split("\n").map((line) => JSON.parse(line) as unknown)).toEqual([
        [65534, 65534],
        { tightened: [], untouched: [{ path, mode: "0666" }] },
        ["666", "666"],
      ]);
      expect(modeOf(path)).toBe("0666");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
