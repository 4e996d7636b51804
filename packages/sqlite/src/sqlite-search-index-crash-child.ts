// Child process of the crash test (sqlite-search-index.test.ts): re-ingests the same 20 sources
// over and over, each a large document whose chunks all carry the round number, and prints the
// round after each commit, until the parent kills it with SIGKILL.
import { openDatabase } from "./database.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

export const CRASH_SOURCES = 20;
export const CRASH_CHUNKS = 150;
export const CRASH_CHATBOT = "11111111-2222-4333-8444-555555555555";
export const CRASH_SPACE = { embedderId: "crash-8", dimensions: 8 };

export async function runCrashChild(path: string): Promise<void> {
  const database = openDatabase({ path });
  const index = createSqliteSearchIndex({ database });
  for (let round = 1; ; round++) {
    const source = `doc-${round % CRASH_SOURCES}`;
    const chunks = Array.from({ length: CRASH_CHUNKS }, (_, position) => ({
      text: `round${round} chunk ${position} of ${source}: some words about refunds, shipping and opening hours`,
      embedding: Float32Array.from({ length: 8 }, (_, dimension) => Math.sin(round + position + dimension)),
    }));
    await index.replaceDocument(CRASH_CHATBOT, CRASH_SPACE, { source, title: `Title ${source}`, chunks });
    process.stdout.write(`${round}\n`);
  }
}

if (process.argv[2] === "--crash-child") await runCrashChild(process.argv[3]!);
