import { appendVector, candidateIds, createVectorTable, createVectorTables, refreshKind, removeMissing, type VectorState } from "@parley/core/vectors";
import type { Database } from "better-sqlite3";

/** Bytes of int8 copies kept across chatbots; the least recently searched are dropped first. */
const CACHE_BYTES = 512 * 2 ** 20;

const floatsOf = (blob: Buffer) =>
  blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) : new Float32Array(Uint8Array.from(blob).buffer);

/**
 * The first pass of a vector search, in memory: each chatbot's vectors as int8 in dimension-major
 * arrays (`@parley/core/vectors`), scored by a partial dot product over the query's heaviest
 * dimensions, so a query reads a few columns instead of every vector. The exact cosine
 * re-scoring of the candidates is the caller's. The arrays follow the database: the chatbot's
 * `generation` (bumped by every write) triggers an incremental refresh (new ids appended, deleted
 * ones masked); its `epoch` (bumped when vectors are replaced in place) a full reload. Memory: one
 * byte per dimension per chunk, at most CACHE_BYTES over all chatbots (least recently searched
 * dropped first).
 */
export function createVectorCache(database: Database) {
  const tables = createVectorTables(CACHE_BYTES);
  const statements = {
    all: database.prepare<[number], { id: number; embedding: Buffer }>(
      "SELECT id, embedding FROM search_chunks WHERE bot = ? AND embedding IS NOT NULL ORDER BY id",
    ),
    newer: database.prepare<[number, number], { id: number; embedding: Buffer }>(
      "SELECT id, embedding FROM search_chunks WHERE bot = ? AND id > ? AND embedding IS NOT NULL ORDER BY id",
    ),
    ids: database.prepare<[number], { id: number }>("SELECT id FROM search_chunks WHERE bot = ? AND embedding IS NOT NULL"),
    count: database.prepare<[number], number>("SELECT count(*) FROM search_chunks WHERE bot = ? AND embedding IS NOT NULL").pluck(),
  };

  const refresh = (bot: number, state: VectorState) => {
    let table = tables.get(bot);
    const kind = refreshKind(table, state);
    if (kind === "fresh") return table!;
    if (kind === "reload" || table === undefined) {
      table = createVectorTable(state, false, statements.count.get(bot) ?? 0);
      for (const row of statements.all.iterate(bot)) appendVector(table, row.id, floatsOf(row.embedding));
    } else {
      removeMissing(table, new Set(statements.ids.all(bot).map((row) => row.id)));
      for (const row of statements.newer.iterate(bot, table.lastId)) appendVector(table, row.id, floatsOf(row.embedding));
      table.generation = state.generation;
    }
    tables.set(bot, table);
    return table;
  };

  return {
    /** Ids of the `wanted` chunks with the best partial dot product with `query`, narrowed to `keep` for a sparse query (`candidateIds`); unordered. */
    candidates(bot: number, state: VectorState, query: Float32Array, wanted: number, keep: number): number[] {
      return candidateIds(refresh(bot, state), query, wanted, keep);
    },
  };
}
