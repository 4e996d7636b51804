import { readFileSync, rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";
import { startWalCheckpointer } from "./wal-checkpointer.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
/** An hour: in these tests the worker checkpoints only when asked. */
const ONLY_WHEN_ASKED = 3_600_000;

/** Writes `pages` pages' worth of rows, each commit its own transaction, as a server's chats do. */
function writePages(database: ReturnType<typeof openDatabase>, pages: number): void {
  const insert = database.prepare("INSERT INTO notes (text) VALUES (?)");
  for (let index = 0; index < pages; index++) insert.run("x".repeat(3_000));
}

describe("startWalCheckpointer", () => {
  it("leaves the checkpoints to its worker: the WAL grows past SQLite's 1,000 pages, then the worker copies every frame", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    database.exec("CREATE TABLE notes (text TEXT)");
    const checkpointer = startWalCheckpointer(database, { intervalMs: ONLY_WHEN_ASKED });
    try {
      writePages(database, 1_500);
      // With the server's own connection checkpointing, the WAL would have restarted at 1,000 pages.
      const done = await checkpointer.checkpointNow();
      expect(done.frames).toBeGreaterThanOrEqual(1_500);
      expect(done.backfilled).toBe(done.frames);
      // The next commit starts the WAL over: nothing is waiting for a checkpoint.
      writePages(database, 10);
      expect((await checkpointer.checkpointNow()).frames).toBeLessThan(100);
    } finally {
      await checkpointer.stop();
    }
    expect(database.prepare("SELECT count(*) FROM notes").pluck().get()).toBe(1_510);
  });

  /**
   * Frames of the WAL seen by five rounds while commits keep coming, a turn of the event loop
   * apart, and the WAL header's first salt after each round (SQLite changes it each time the WAL
   * starts over).
   */
  async function roundsUnderCommits(restartFrames: number): Promise<{ framesSeen: number[]; salts: number[] }> {
    const path = freshPath();
    const database = track(openDatabase({ path }));
    database.exec("CREATE TABLE notes (text TEXT)");
    const checkpointer = startWalCheckpointer(database, { intervalMs: ONLY_WHEN_ASKED, restartFrames });
    try {
      const framesSeen: number[] = [];
      const salts: number[] = [];
      for (let round = 0; round < 5; round++) {
        // Each round finds frames written since the last one's count (the worker may count as
        // soon as it is asked, before this thread's next commit), then commits keep coming, a
        // turn of the event loop apart, until the round is over.
        writePages(database, 5);
        let over = false;
        const result = checkpointer.checkpointNow().finally(() => (over = true));
        do {
          writePages(database, 5);
          await new Promise((resolve) => setImmediate(resolve));
        } while (!over);
        const { frames, backfilled } = await result;
        if (frames >= restartFrames) expect(backfilled).toBe(frames);
        framesSeen.push(frames);
        salts.push(readFileSync(`${path}-wal`).readUInt32BE(16));
      }
      return { framesSeen, salts };
    } finally {
      await checkpointer.stop();
    }
  }

  it("starts a long WAL over under a steady stream of commits, which go on while the worker copies", async () => {
    const { framesSeen, salts } = await roundsUnderCommits(1);
    // The WAL started over (a new header) while the commits went on, at each round that found
    // every frame copied; the first round waits for the worker to start, so its commits are many.
    expect(new Set(salts).size).toBeGreaterThan(1);
    expect(framesSeen[0]).toBeGreaterThan(0);
  });

  it("lets a short WAL grow, without a checkpoint on the server's own connection", async () => {
    const { framesSeen, salts } = await roundsUnderCommits(1_000_000);
    for (let round = 1; round < framesSeen.length; round++) expect(framesSeen[round]).toBeGreaterThan(framesSeen[round - 1]!);
    expect(new Set(salts).size).toBe(1);
  });

  it("gives the checkpoints back to the database's own connection when it stops", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    const checkpointer = startWalCheckpointer(database, { intervalMs: ONLY_WHEN_ASKED });
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    await checkpointer.stop();
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(1_000);
    await expect(checkpointer.checkpointNow()).rejects.toThrow("The checkpointer has stopped.");
  });

  it("gives them back, and says so, when its worker fails", async () => {
    const errors: Error[] = [];
    const path = freshPath();
    const database = track(openDatabase({ path }));
    // A file the worker cannot open: removed while this connection keeps it open.
    rmSync(path);
    const checkpointer = startWalCheckpointer(database, { intervalMs: ONLY_WHEN_ASKED, onError: (error) => errors.push(error) });
    await expect(checkpointer.checkpointNow()).rejects.toThrow();
    expect(errors.map((error) => error.message)).toEqual([expect.stringContaining("unable to open database file")]);
    expect(database.pragma("wal_autocheckpoint", { simple: true })).toBe(1_000);
  });
});
