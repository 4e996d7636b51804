import { writeSync } from "node:fs";

/** Text queued beyond this many characters makes `write` wait for the reader (backpressure) instead of growing without end. */
const MAX_QUEUED_CHARS = 8 * 1024 * 1024;
/** How long the last words of a process wait for a full pipe's reader before the rest is given up. */
const LAST_WORDS_DEADLINE_MS = 10_000;
/** A full pipe is tried again after this long, doubling up to `RETRY_MAX_MS`: no readiness event reaches a plain fd. */
const RETRY_FIRST_MS = 1;
const RETRY_MAX_MS = 50;

/** A batched, non-blocking writer of whole lines to a file descriptor (the server's stdout). */
export interface LineWriter {
  /** Queues text (whole lines); it is written after the current turn of the event loop, in one write with every other line of that turn. */
  write(text: string): void;
  /**
   * Writes everything queued now, waiting for a full pipe's reader up to `deadlineMs` (what is
   * still unwritten then is given up): for a graceful stop and for a crash's last words.
   */
  flushSync(deadlineMs?: number): void;
  /** Characters queued and not yet taken by the destination. */
  readonly queued: number;
}

/**
 * A writer of log lines that never waits on its reader, with nothing queued in Node's stream
 * machinery that an exit would lose:
 * - lines of one turn of the event loop go out in one `write(2)` on the next turn;
 * - a pipe or socket is in non-blocking mode (libuv sets it when `process.stdout` is first
 *   touched), so a full pipe answers EAGAIN at once: the bytes it did not take wait here, counted
 *   exactly, and are tried again shortly; a regular file or /dev/null takes each batch at once;
 * - on exit (a graceful stop, `process.exit`, an uncaught exception: Node emits `exit` before the
 *   process ends) everything queued is written synchronously, waiting for the reader if it must.
 * Node's own `process.stdout` costs a write and a stream's bookkeeping per line, writes to a file
 * synchronously, and loses what a full pipe left in its queue when the process exits.
 */
export function createLineWriter(fd: number): LineWriter {
  let queued = "";
  // Bytes of a batch the destination took only part of: written before anything queued after them.
  let carry: Buffer | undefined;
  let scheduled = false;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = RETRY_FIRST_MS;
  let broken = false;

  /** Writes what the destination takes without waiting; true when nothing is left. */
  function writeWhatFits(): boolean {
    for (;;) {
      if (carry === undefined) {
        if (queued.length === 0) return true;
        carry = Buffer.from(queued, "utf8");
        queued = "";
      }
      let written: number;
      try {
        written = writeSync(fd, carry);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EAGAIN") return false;
        // EPIPE, EBADF…: nobody reads any more, and nothing queued has anywhere to go.
        broken = true;
        queued = "";
        carry = undefined;
        return true;
      }
      carry = written === carry.length ? undefined : carry.subarray(written);
    }
  }

  function flushSoon(): void {
    scheduled = false;
    if (retry !== undefined) return;
    if (writeWhatFits()) {
      retryMs = RETRY_FIRST_MS;
      return;
    }
    // A full pipe: try again shortly; the timer does not hold an exiting process (its exit flushes).
    retry = setTimeout(() => {
      retry = undefined;
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      flushSoon();
    }, retryMs);
    retry.unref();
  }

  function flushSync(deadlineMs = LAST_WORDS_DEADLINE_MS): void {
    const giveUpAt = Date.now() + deadlineMs;
    while (!writeWhatFits()) {
      if (Date.now() >= giveUpAt) {
        queued = "";
        carry = undefined;
        return;
      }
      sleepMs(1);
    }
  }

  if (fd === 1) void process.stdout;
  else if (fd === 2) void process.stderr;
  process.on("exit", () => flushSync());

  return {
    write(text) {
      if (broken) return;
      queued += text;
      if (queued.length > MAX_QUEUED_CHARS) {
        // The reader has fallen megabytes behind: wait for it rather than lose lines or memory.
        flushSync(Number.POSITIVE_INFINITY);
        return;
      }
      if (!scheduled) {
        scheduled = true;
        setImmediate(flushSoon);
      }
    },
    flushSync,
    get queued() {
      return queued.length + (carry?.length ?? 0);
    },
  };
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (only while flushing synchronously into a full pipe). */
function sleepMs(ms: number): void {
  Atomics.wait(pause, 0, 0, ms);
}
