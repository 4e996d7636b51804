// Generated documents for the search index's tests on PostgreSQL: BM25 against SQLite's, and pgvector.
import type { DocumentToIndex } from "@parley/core";

/** A deterministic pseudo-random stream (tests stay reproducible). */
function random(seed: number) {
  let state = seed;
  return () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
}
const VOCABULARY = "refund shipping courier europe invoice parcel delivery return warranty battery screen charger cable order account password".split(" ");

/**
 * `count` documents of one to three chunks of words drawn from a small support vocabulary, each
 * chunk with a 3-dimension embedding; the same seed gives the same documents.
 */
export function generatedDocuments(count: number, seed: number): DocumentToIndex[] {
  const next = random(seed);
  const pick = () => VOCABULARY[Math.floor(next() * VOCABULARY.length)]!;
  return Array.from({ length: count }, (_, index) => ({
    source: `doc-${index}.md`,
    title: `${pick()} ${pick()}`,
    chunks: Array.from({ length: 1 + Math.floor(next() * 3) }, () => ({
      text: Array.from({ length: 5 + Math.floor(next() * 30) }, pick).join(" ") + " and the, of a",
      embedding: Float32Array.from([next() - 0.5, next() - 0.5, next() - 0.5]),
    })),
  }));
}
