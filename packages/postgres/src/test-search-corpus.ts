import type { DocumentToIndex, EmbeddingSpace } from "@parley/core";

// The documents two processes ingest at once in postgres-search-concurrency.test.ts.

export const CONCURRENCY_SPACE: EmbeddingSpace = { embedderId: "test-3", dimensions: 3 };
export const CONCURRENCY_BOT = "c0c0c0c0-1111-4222-8333-444444444444";
const WORDS = "refund shipping courier europe invoice parcel delivery return warranty battery screen charger cable order account".split(" ");

/** Ten batches of five documents: 40 of the process's own, and ten shared sources both replace. */
export function concurrencyBatches(prefix: string): DocumentToIndex[][] {
  let seed = prefix.charCodeAt(0);
  const next = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const document = (source: string): DocumentToIndex => ({
    source,
    title: `${source} ${WORDS[Math.floor(next() * WORDS.length)]}`,
    chunks: Array.from({ length: 1 + Math.floor(next() * 4) }, () => ({
      text: Array.from({ length: 3 + Math.floor(next() * 20) }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" "),
      embedding: Float32Array.from([next() - 0.5, next() - 0.5, next() - 0.5]),
    })),
  });
  const sources = [...Array.from({ length: 40 }, (_, index) => `${prefix}-${index}`), ...Array.from({ length: 10 }, (_, index) => `shared-${index}`)];
  // Interleaved, so both processes replace the shared sources while the other writes.
  const ordered = sources.map((_, index) => sources[(index * 7) % sources.length]!);
  return Array.from({ length: 10 }, (_, batch) => ordered.slice(batch * 5, batch * 5 + 5).map(document));
}
