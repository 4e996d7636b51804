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
   * Five rounds while commits keep coming, a turn of the event loop apart: the WAL header's first
   * salt after each round (SQLite changes it each time the WAL starts over), and the checkpoints
   * the rounds ran on the database's own connection.
   */
  async function roundsUnderCommits(restartFrames: number): Promise<{ salts: number[]; ownCheckpoints: number }> {
    const path = freshPath();
    const database = track(openDatabase({ path }));
    database.exec("CREATE TABLE notes (text TEXT)");
    const checkpointer = startWalCheckpointer(database, { intervalMs: ONLY_WHEN_ASKED, restartFrames });
    let ownCheckpoints = 0;
    const pragma = database.pragma.bind(database);
    database.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (source.startsWith("wal_checkpoint")) ownCheckpoints += 1;
      return pragma(source, options);
    }) as typeof database.pragma;
    try {
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
        salts.push(readFileSync(`${path}-wal`).readUInt32BE(16));
      }
      return { salts, ownCheckpoints };
    } finally {
      await checkpointer.stop();
    }
  }

  it("starts a long WAL over under a steady stream of commits, which go on while the worker copies", async () => {
    const { salts, ownCheckpoints } = await roundsUnderCommits(1);
    // A round that found frames ended with a checkpoint on the database's own connection, after
    // which its next commit started the WAL over (a new header) while the commits went on. (A
    // round can find none: the worker may read the WAL's header as a commit starts it over.)
    expect(ownCheckpoints).toBeGreaterThan(0);
    expect(new Set(salts).size).toBeGreaterThan(1);
  });

  it("leaves a short WAL to the worker: no checkpoint on the server's own connection", async () => {
    // Whether the WAL then grows or starts over is the threads' race: a worker that copies every
    // frame between two commits (the committing thread descheduled) lets SQLite start it over,
    // so neither the frames counted nor the salts are asserted here.
    const { ownCheckpoints } = await roundsUnderCommits(1_000_000);
    expect(ownCheckpoints).toBe(0);
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
