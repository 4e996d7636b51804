import { symlinkSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";
import { commitCount, headerBuffer, openWalIndexHeader, type WalIndexHeader } from "./wal-index-header.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();

/** The commit count the header holds now. */
function commitsOf(header: WalIndexHeader): number {
  const buffer = headerBuffer();
  header.read(buffer);
  return commitCount(buffer);
}

describe("the wal-index header", () => {
  it("counts each commit that changed the database, of any connection; not reads, empty transactions or checkpoints", () => {
    const path = freshPath();
    const database = track(openDatabase({ path }));
    const header = track(openWalIndexHeader(database)!);
    const other = track(openDatabase({ path }));
    const start = commitsOf(header);
    other.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('a', 1)").run();
    expect(commitsOf(header)).toBe(start + 1);
    database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('b', 1)").run();
    expect(commitsOf(header)).toBe(start + 2);
    other.transaction(() => {
      other.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('c', 1)").run();
      other.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('d', 1)").run();
    })();
    expect(commitsOf(header)).toBe(start + 3);
    database.prepare("SELECT count(*) FROM plans").get();
    other.transaction(() => undefined).immediate();
    other.pragma("wal_checkpoint(TRUNCATE)");
    expect(commitsOf(header)).toBe(start + 3);
  });

  it("reads the file SQLite maps, also when the database was opened through a symbolic link and a relative path", () => {
    const path = freshPath();
    track(openDatabase({ path })).close();
    const link = join(dirname(path), `link-to-${basename(path)}`);
    symlinkSync(path, link);
    const database = track(openDatabase({ path: relative(process.cwd(), link) }));
    const header = track(openWalIndexHeader(database)!);
    const start = commitsOf(header);
    track(openDatabase({ path })).prepare("INSERT INTO plans (name, monthly_messages) VALUES ('a', 1)").run();
    expect(commitsOf(header)).toBe(start + 1);
  });

  it("is not there for a database without one: in memory", () => {
    expect(openWalIndexHeader(track(openDatabase({ path: ":memory:" })))).toBeNull();
  });
});
