import type { DocumentToIndex } from "@parley/core";
import type pg from "pg";
import { chunkTerms } from "./postgres-search-terms.js";
import { SEARCH_SQL } from "./postgres-search-statements.js";
import { toBytes } from "./postgres-text.js";
import type { VectorMode } from "./postgres-vector-mode.js";

/** Postings sent in one INSERT at most, so a large batch never builds one huge parameter. */
const POSTINGS_PER_INSERT = 20_000;

/** A vector as pgvector's text input: a Float32 prints exactly, so it is read back bit for bit. */
export const vectorText = (vector: Float32Array) => `[${Array.from(vector).join(",")}]`;

/** A vector as its column holds it in the database's mode: pgvector's text, or float32 little-endian bytes. */
export function vectorColumn(vectors: VectorMode, vector: Float32Array): string | Buffer {
  if (vectors === "pgvector") return vectorText(vector);
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes;
}

/**
 * Removes chunks from a chatbot with their postings, keeping its BM25 statistics (chunk count,
 * total length, document frequencies) exact. Runs in the caller's transaction. Returns how many.
 */
export async function removeChunks(client: pg.PoolClient, key: number, ids: number[]): Promise<number> {
  if (ids.length === 0) return 0;
  const { rows: terms } = await client.query<{ term: string; document_frequency: number }>(SEARCH_SQL.decrementTerms, [key, ids]);
  await client.query(SEARCH_SQL.deletePostings, [key, ids]);
  const unused = terms.filter((row) => row.document_frequency === 0).map((row) => row.term);
  if (unused.length > 0) await client.query(SEARCH_SQL.deleteUnusedTerms, [key, unused]);
  const { rows } = await client.query<{ length: number }>(SEARCH_SQL.deleteChunks, [key, ids]);
  const length = rows.reduce((sum, row) => sum + row.length, 0);
  await client.query(SEARCH_SQL.addStatistics, [key, -rows.length, -length]);
  return rows.length;
}

/** Removes every chunk of the given sources; the number removed. */
export async function removeSources(client: pg.PoolClient, key: number, sources: string[]): Promise<number> {
  const { rows } = await client.query<{ id: number }>(SEARCH_SQL.chunksOfSources, [key, sources.map(toBytes)]);
  return removeChunks(client, key, rows.map((row) => row.id));
}

/**
 * Inserts documents' chunks with their postings, document frequencies and statistics, in the
 * caller's transaction. Chunk ids are drawn from the sequence first, so they follow the order given.
 */
export async function insertDocuments(client: pg.PoolClient, key: number, documents: DocumentToIndex[], titleWeight: number, vectors: VectorMode): Promise<void> {
  const chunks = documents.flatMap((document) => document.chunks.map((chunk) => ({ document, chunk })));
  if (chunks.length === 0) return;
  const { rows } = await client.query<{ id: number }>(SEARCH_SQL.newChunkIds, [chunks.length]);
  const ids = rows.map((row) => row.id).sort((a, b) => a - b);
  const postings = { terms: [] as string[], chunkIds: [] as number[], frequencies: [] as number[], lengths: [] as number[] };
  const documentFrequencies = new Map<string, number>();
  let totalLength = 0;
  const lengths = chunks.map(({ document, chunk }, index) => {
    const { frequencies, length } = chunkTerms(document.title, chunk.text, titleWeight);
    for (const [term, frequency] of frequencies) {
      postings.terms.push(term);
      postings.chunkIds.push(ids[index]!);
      postings.frequencies.push(frequency);
      postings.lengths.push(length);
      documentFrequencies.set(term, (documentFrequencies.get(term) ?? 0) + 1);
    }
    totalLength += length;
    return length;
  });
  await client.query(SEARCH_SQL.insertChunks(vectors), [
    key,
    ids,
    chunks.map(({ document }) => toBytes(document.source)),
    chunks.map(({ document }) => toBytes(document.title)),
    chunks.map(({ chunk }) => toBytes(chunk.text)),
    lengths,
    chunks.map(({ chunk }) => vectorColumn(vectors, chunk.embedding)),
  ]);
  for (let start = 0; start < postings.terms.length; start += POSTINGS_PER_INSERT) {
    const end = start + POSTINGS_PER_INSERT;
    await client.query(SEARCH_SQL.insertPostings, [
      key,
      postings.terms.slice(start, end),
      postings.chunkIds.slice(start, end),
      postings.frequencies.slice(start, end),
      postings.lengths.slice(start, end),
    ]);
  }
  await client.query(SEARCH_SQL.addTerms, [key, [...documentFrequencies.keys()], [...documentFrequencies.values()]]);
  await client.query(SEARCH_SQL.addStatistics, [key, chunks.length, totalLength]);
}
