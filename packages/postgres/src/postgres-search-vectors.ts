import { appendVector, createVectorTable, createVectorTables, nearestByCosine, refreshKind, removeMissing, type VectorState, type VectorTable } from "@parley/core/vectors";
import type pg from "pg";
import { floatsOfBytes } from "./migrations/move-to-pgvector.js";

/** Bytes of vector copies kept across chatbots; the least recently searched are dropped first. */
const CACHE_BYTES = 512 * 2 ** 20;

const SQL = {
  all: "SELECT id, embedding FROM search_chunks WHERE bot = $1 AND embedding IS NOT NULL ORDER BY id",
  newer: "SELECT id, embedding FROM search_chunks WHERE bot = $1 AND id > $2 AND embedding IS NOT NULL ORDER BY id",
  ids: "SELECT id FROM search_chunks WHERE bot = $1 AND embedding IS NOT NULL",
} as const;

/** The vectors of `bytes`, one per float32; a row of another length than `dimensions` is left out by the table. */
const load = (table: VectorTable, rows: { id: number; embedding: Buffer }[]) => {
  for (const row of rows) appendVector(table, row.id, floatsOfBytes(row.embedding));
};

/**
 * The vector arm of a database without pgvector, in the server process (docs/design.md, "Any
 * PostgreSQL"): each chatbot's vectors held as int8 columns and exact float32 copies
 * (`@parley/core/vectors`, as SQLite holds them), refreshed from the database whenever the
 * chatbot's `generation` or `epoch` (read with its statistics by every search) differs from the
 * copy's: new ids appended and deleted ones masked, or everything read again. The versions are
 * bumped in the transactions that write the chunks, so a copy is never older than the row the
 * search read: no process scores stale vectors. One refresh per chatbot runs at a time.
 */
export function createInProcessVectors(pool: pg.Pool) {
  const tables = createVectorTables(CACHE_BYTES);
  const refreshing = new Map<number, Promise<VectorTable>>();

  const refresh = async (bot: number, state: VectorState): Promise<VectorTable> => {
    const held = tables.get(bot);
    const kind = refreshKind(held, state);
    if (kind === "fresh") return held!;
    let table: VectorTable;
    if (kind === "reload" || held === undefined) {
      const { rows } = await pool.query<{ id: number; embedding: Buffer }>(SQL.all, [bot]);
      table = createVectorTable(state, true, rows.length);
      load(table, rows);
    } else {
      table = held;
      // The rows read may be newer than `state`: a later search then sees a newer version and
      // refreshes again, which only appends and masks.
      const [present, newer] = await Promise.all([
        pool.query<{ id: number }>(SQL.ids, [bot]),
        pool.query<{ id: number; embedding: Buffer }>(SQL.newer, [bot, table.lastId]),
      ]);
      removeMissing(table, new Set(present.rows.map((row) => row.id)));
      load(table, newer.rows);
      table.generation = state.generation;
    }
    tables.set(bot, table);
    return table;
  };

  return {
    /** The `k` nearest chunk ids by exact cosine with their scores, from a copy at least as new as `state`. */
    async nearest(bot: number, state: VectorState, query: Float32Array, k: number, oversampled: number): Promise<{ id: number; score: number }[]> {
      let pending = refreshing.get(bot);
      if (pending === undefined) {
        pending = refresh(bot, state).finally(() => refreshing.delete(bot));
        refreshing.set(bot, pending);
      }
      let table = await pending;
      // A refresh started for an older state than ours: catch up once more.
      if (refreshKind(table, state) !== "fresh" && (table.generation < state.generation || table.epoch < state.epoch)) table = await refresh(bot, state);
      return nearestByCosine(table, query, k, oversampled);
    },
  };
}
