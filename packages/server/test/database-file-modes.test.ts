import { chmodSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, "0");

let folder: string;
let previousUmask: number;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "parley-file-modes-"));
  // The usual umask, under which SQLite alone would create the database 0644.
  previousUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(previousUmask);
  rmSync(folder, { recursive: true, force: true });
});

describe("database file modes at start-up", () => {
  it("creates a new database owner-only and logs nothing about it", () => {
    const path = join(folder, "parley.db");
    const logs: Record<string, unknown>[] = [];
    openParley(loadConfig({ PARLEY_DB: path }), { log: (line) => logs.push(line) }).close();
    expect(modeOf(path)).toBe("0600");
    expect(logs).toEqual([]);
  });

  it("tightens an existing 0644 database to 0600 and logs one warning line that names the file and its old mode", () => {
    const path = join(folder, "parley.db");
    openParley(loadConfig({ PARLEY_DB: path })).close();
    chmodSync(path, 0o644);
    const logs: Record<string, unknown>[] = [];
    openParley(loadConfig({ PARLEY_DB: path }), { log: (line) => logs.push(line) }).close();
    expect(modeOf(path)).toBe("0600");
    expect(logs).toEqual([
      {
        level: "warn",
        event: "database_files_tightened",
        detail: "Other local users could read the database files; they are now owner-only (mode 0600).",
        files: [{ path, mode: "0644" }],
      },
    ]);
  });
});
