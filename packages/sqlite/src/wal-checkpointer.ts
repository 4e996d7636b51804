import type { Database } from "better-sqlite3";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** SQLite's own default: a committing connection checkpoints once the WAL holds this many pages. */
const AUTOCHECKPOINT_PAGES = 1000;
/** The WAL's length at which a round makes sure it starts over: 64 MB of 4 KB pages. */
const RESTART_FRAMES = 16_384;

/** What one checkpoint found: the WAL's frames, and how many of them are now in the database file. */
export interface CheckpointResult {
  frames: number;
  backfilled: number;
}

export interface WalCheckpointer {
  /**
   * One round now: PASSIVE checkpoints on the worker's connection until one copies little, then,
   * when the WAL holds `restartFrames` or more, one on the database's own for the frames
   * committed meanwhile. What the last found (every frame backfilled after the database's own,
   * unless a reader of another connection holds an older snapshot).
   */
  checkpointNow(): Promise<CheckpointResult>;
  /** Ends the worker and gives checkpoints back to the database's own connection. */
  stop(): Promise<void>;
}

export interface WalCheckpointerOptions {
  /** Milliseconds between rounds (250: about as often as SQLite's 1,000 pages under a busy chat load). */
  intervalMs?: number;
  /**
   * Frames the WAL may hold before a round ends with a checkpoint on `database` itself, so that
   * the WAL starts over (16,384: 64 MB of 4 KB pages).
   */
  restartFrames?: number;
  /** Told when the worker fails; checkpoints then go back to `database` itself. */
  onError?: (error: Error) => void;
}

// The worker: its own connection to the file, a PASSIVE checkpoint (never waits for, nor blocks,
// a writer or a reader) on request. Evaluated from this string, so a bundled server needs no
// separate file for it.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
// SQLite's errors cross to the parent as a bare { code }: pass their message on as a plain Error.
const failed = (error) => new Error(error && error.message ? error.message : String(error));
const Database = require(workerData.driver);
let database;
try {
  database = new Database(workerData.path, { fileMustExist: true });
} catch (error) {
  throw failed(error);
}
const checkpoint = () => {
  try {
    const [row] = database.pragma("wal_checkpoint(PASSIVE)");
    return { frames: row.log, backfilled: row.checkpointed };
  } catch (error) {
    throw failed(error);
  }
};
// Passes until one copies at most SETTLED frames (or the WAL started over), so that what is left
// for the server's own connection is what was committed during a short pass.
const SETTLED = 256;
const settle = () => {
  let last = checkpoint();
  for (let pass = 0; pass < 4; pass++) {
    const next = checkpoint();
    const copied = next.frames < last.frames ? next.backfilled : next.backfilled - last.backfilled;
    last = next;
    if (copied <= SETTLED) break;
  }
  return last;
};
parentPort.on("message", (message) => {
  if (message === "checkpoint") parentPort.postMessage(settle());
  if (message === "stop") {
    database.close();
    parentPort.close();
  }
});
`;

/**
 * Moves the WAL's checkpoints off the event loop. By default SQLite checkpoints on the connection
 * that commits: every ~1,000 pages one commit also copies them into the database file and waits
 * for two `fsync`s, which stalls every request of the server for that long (3–17 ms for 4 MB on
 * a virtual disk). Here `database` stops checkpointing (`wal_autocheckpoint = 0`) and a worker
 * thread copies the frames on a connection of its own (docs/operations.md, "The database").
 *
 * The worker alone would let the WAL grow without end under a steady load: SQLite starts the WAL
 * over only at a commit that finds every frame copied, and the server commits while the worker
 * copies (the file grew 45 MB a second in `npm run bench:http`, each new page zeroed by the
 * kernel). So the worker repeats its PASSIVE checkpoint until a pass copies at most 256 frames
 * (at most five passes), and once the WAL holds `restartFrames`, the round ends on `database`
 * itself with one more PASSIVE checkpoint, of the frames committed during the worker's last
 * pass, after which the next commit starts the WAL over. That last step copies and syncs on the
 * event loop, so it waits until the WAL is long: under a steady load the file then stays at
 * about that length and is written over, and a lighter load lets the WAL start over by itself.
 * Durability is unchanged: a commit is in the WAL before it returns, whoever checkpoints.
 * Stopping, or a worker that fails, gives the checkpoints back to `database`.
 */
export function startWalCheckpointer(database: Database, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  const restartFrames = options.restartFrames ?? RESTART_FRAMES;
  const worker = new Worker(WORKER, { eval: true, workerData: { path: database.name, driver } });
  worker.unref();
  database.pragma("wal_autocheckpoint = 0");
  let running = true;
  const waiting: { resolve: (result: CheckpointResult) => void; reject: (error: Error) => void }[] = [];
  const giveBack = (error: Error) => {
    if (!running) return;
    running = false;
    clearInterval(timer);
    if (database.open) database.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    for (const request of waiting.splice(0)) request.reject(error);
  };
  worker.on("message", (result: CheckpointResult) => waiting.shift()?.resolve(result));
  worker.on("error", (error) => {
    giveBack(error);
    options.onError?.(error);
  });
  worker.on("exit", () => giveBack(new Error("The checkpointer has stopped.")));

  const onWorker = () =>
    new Promise<CheckpointResult>((resolve, reject) => {
      if (!running) return reject(new Error("The checkpointer has stopped."));
      waiting.push({ resolve, reject });
      worker.postMessage("checkpoint");
    });
  const round = async (): Promise<CheckpointResult> => {
    const copied = await onWorker();
    if (!database.open || copied.frames < restartFrames) return copied;
    try {
      const [row] = database.pragma("wal_checkpoint(PASSIVE)") as { log: number; checkpointed: number }[];
      return { frames: row!.log, backfilled: row!.checkpointed };
    } catch {
      // SQLITE_BUSY: another process's connection is checkpointing this file; the next round finishes.
      return copied;
    }
  };
  let inRound: Promise<CheckpointResult> | undefined;
  const checkpointNow = () =>
    (inRound ??= round().finally(() => {
      inRound = undefined;
    }));
  const timer = setInterval(() => {
    // A failed round has already said so (onError) and given the checkpoints back.
    if (running && inRound === undefined) checkpointNow().catch(() => {});
  }, options.intervalMs ?? 250);
  timer.unref();
  return {
    checkpointNow,
    async stop() {
      if (!running) return;
      clearInterval(timer);
      const exited = new Promise((resolve) => worker.once("exit", resolve));
      // Held by the process until it has closed its connection (unreferenced, it would not be waited for).
      worker.ref();
      worker.postMessage("stop");
      await exited;
    },
  };
}
