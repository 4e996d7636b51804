// Child process of the crash test (sqlite-search-index-consistency.test.ts): re-ingests the same
// 20 sources over and over, each a large document whose chunks all carry the round number, and
// prints the round after each commit. In round CRASH_ROUND it stops halfway through writing the
// document, inside the write transaction, says so on stdout, and waits there for the parent's
// SIGKILL.
import { writeSync } from "node:fs";
import { openDatabase } from "./database.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

export const CRASH_SOURCES = 20;
export const CRASH_CHUNKS = 150;
/** The round the child is killed in: past a whole pass over the sources. */
export const CRASH_ROUND = 31;
export const CRASH_CHATBOT = "11111111-2222-4333-8444-555555555555";
export const CRASH_SPACE = { embedderId: "crash-8", dimensions: 8 };

/** The source a round rewrites. */
export const crashSourceOf = (round: number) => `doc-${round % CRASH_SOURCES}`;

export async function runCrashChild(path: string): Promise<void> {
  const database = openDatabase({ path });
  const index = createSqliteSearchIndex({ database });
  for (let round = 1; ; round++) {
    const source = crashSourceOf(round);
    const chunks = Array.from({ length: CRASH_CHUNKS }, (_, position) => ({
      text: `round${round} chunk ${position} of ${source}: some words about refunds, shipping and opening hours`,
      embedding: Float32Array.from({ length: 8 }, (_, dimension) => Math.sin(round + position + dimension)),
    }));
    if (round === CRASH_ROUND) {
      // The index reads a chunk's text when it writes the chunk, so this getter runs in the
      // middle of the write: the chunks before it are written, the transaction is open.
      const { text } = chunks[CRASH_CHUNKS / 2]!;
      Object.defineProperty(chunks[CRASH_CHUNKS / 2]!, "text", {
        get() {
          writeSync(1, `writing ${round} in transaction: ${database.inTransaction}\n`);
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000); // until killed
          return text;
        },
      });
    }
    await index.replaceDocument(CRASH_CHATBOT, CRASH_SPACE, { source, title: `Title ${source}`, chunks });
    process.stdout.write(`${round}\n`);
  }
}

if (process.argv[2] === "--crash-child") await runCrashChild(process.argv[3]!);
