import type { Database } from "better-sqlite3";

/** Query dimensions scored in the first pass, at most; enough to hold most of a query's weight. */
const MAX_PROBED_DIMENSIONS = 48;
/** The first pass stops adding dimensions once they hold this share of the query's squared norm. */
const PROBED_ENERGY = 0.8;

/** Bytes of int8 copies kept across chatbots; the least recently searched are dropped first. */
const CACHE_BYTES = 512 * 2 ** 20;

/** One chatbot's vectors as int8, dimension-major, for a partial dot product over a few dimensions. */
interface VectorTable {
  generation: number;
  epoch: number;
  dimensions: number;
  capacity: number;
  count: number;
  ids: Float64Array;
  /** Per row: the int8 → float scale; 0 marks a deleted row. */
  scales: Float32Array;
  /** Column d of row r at d * capacity + r. */
  columns: Int8Array;
  rows: Map<number, number>;
  lastId: number;
  deleted: number;
}

const floatsOf = (blob: Buffer) =>
  blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) : new Float32Array(Uint8Array.from(blob).buffer);

function emptyTable(dimensions: number, capacity: number, generation: number, epoch: number): VectorTable {
  return {
    generation, epoch, dimensions, capacity, count: 0, lastId: 0, deleted: 0,
    ids: new Float64Array(capacity), scales: new Float32Array(capacity), columns: new Int8Array(dimensions * capacity), rows: new Map(),
  };
}

function grow(table: VectorTable, needed: number): void {
  if (needed <= table.capacity) return;
  const capacity = Math.max(needed, table.capacity * 2, 256);
  const columns = new Int8Array(table.dimensions * capacity);
  for (let dimension = 0; dimension < table.dimensions; dimension++) {
    columns.set(table.columns.subarray(dimension * table.capacity, dimension * table.capacity + table.count), dimension * capacity);
  }
  const ids = new Float64Array(capacity);
  ids.set(table.ids.subarray(0, table.count));
  const scales = new Float32Array(capacity);
  scales.set(table.scales.subarray(0, table.count));
  Object.assign(table, { capacity, columns, ids, scales });
}

function append(table: VectorTable, id: number, vector: Float32Array): void {
  if (vector.length !== table.dimensions) return; // a stale row of another space: not searchable
  grow(table, table.count + 1);
  const row = table.count++;
  let largest = 0;
  for (const value of vector) largest = Math.max(largest, Math.abs(value));
  const scale = largest === 0 ? 0 : largest / 127;
  for (let dimension = 0; dimension < table.dimensions; dimension++) {
    table.columns[dimension * table.capacity + row] = scale === 0 ? 0 : Math.round(vector[dimension]! / scale);
  }
  table.ids[row] = id;
  table.scales[row] = scale === 0 ? Number.MIN_VALUE : scale;
  table.rows.set(id, row);
  table.lastId = Math.max(table.lastId, id);
}

/**
 * The first pass of a vector search, in memory: each chatbot's vectors as int8 in dimension-major
 * arrays, scored by a partial dot product over the query's heaviest dimensions, so a query reads
 * a few columns instead of every vector. The exact cosine re-scoring of the candidates is the
 * caller's. The arrays follow the database: the chatbot's `generation` (bumped by every write)
 * triggers an incremental refresh (new ids appended, deleted ones masked); its `epoch` (bumped
 * when vectors are replaced in place) a full reload. Memory: one byte per dimension per chunk,
 * at most CACHE_BYTES over all chatbots (least recently searched dropped first).
 */
export function createVectorCache(database: Database) {
  const tables = new Map<number, VectorTable>();
  const statements = {
    all: database.prepare<[number], { id: number; embedding: Buffer }>(
      "SELECT id, embedding FROM search_chunks WHERE bot = ? AND embedding IS NOT NULL ORDER BY id",
    ),
    newer: database.prepare<[number, number], { id: number; embedding: Buffer }>(
      "SELECT id, embedding FROM search_chunks WHERE bot = ? AND id > ? AND embedding IS NOT NULL ORDER BY id",
    ),
    ids: database.prepare<[number], { id: number }>("SELECT id FROM search_chunks WHERE bot = ? AND embedding IS NOT NULL"),
  };

  const refresh = (bot: number, generation: number, epoch: number, dimensions: number): VectorTable => {
    let table = tables.get(bot);
    tables.delete(bot); // re-inserted below: the Map's order is the recency order
    if (table !== undefined && table.generation === generation && table.epoch === epoch && table.dimensions === dimensions) {
      tables.set(bot, table);
      return table;
    }
    if (table === undefined || table.epoch !== epoch || table.dimensions !== dimensions || table.deleted > table.count / 4) {
      table = emptyTable(dimensions, 256, generation, epoch);
      for (const row of statements.all.iterate(bot)) append(table, row.id, floatsOf(row.embedding));
    } else {
      const present = new Set(statements.ids.all(bot).map((row) => row.id));
      for (const [id, row] of table.rows) {
        if (present.has(id)) continue;
        table.scales[row] = 0;
        table.rows.delete(id);
        table.deleted++;
      }
      for (const row of statements.newer.iterate(bot, table.lastId)) append(table, row.id, floatsOf(row.embedding));
      table.generation = generation;
    }
    tables.set(bot, table);
    let bytes = 0;
    for (const cached of tables.values()) bytes += cached.columns.byteLength;
    for (const [oldest, cached] of tables) {
      if (bytes <= CACHE_BYTES || oldest === bot) break;
      bytes -= cached.columns.byteLength;
      tables.delete(oldest);
    }
    return table;
  };

  return {
    /** Ids of about `wanted` chunks with the best partial dot product with `query`, unordered. */
    candidates(bot: number, state: { generation: number; epoch: number; dimensions: number }, query: Float32Array, wanted: number): number[] {
      const table = refresh(bot, state.generation, state.epoch, state.dimensions);
      const live = table.count - table.deleted;
      if (live <= wanted) return [...table.rows.keys()];
      const order = Array.from(query.keys()).sort((a, b) => Math.abs(query[b]!) - Math.abs(query[a]!));
      let total = 0;
      for (const value of query) total += value * value;
      const scores = new Float32Array(table.count);
      let energy = 0;
      for (let probe = 0; probe < Math.min(MAX_PROBED_DIMENSIONS, order.length); probe++) {
        const dimension = order[probe]!;
        const weight = query[dimension]!;
        if (weight === 0) break;
        const offset = dimension * table.capacity;
        for (let row = 0; row < table.count; row++) scores[row]! += weight * table.columns[offset + row]!;
        energy += weight * weight;
        if (energy >= PROBED_ENERGY * total) break;
      }
      for (let row = 0; row < table.count; row++) scores[row] = table.scales[row] === 0 ? -Infinity : scores[row]! * table.scales[row]!;
      const threshold = kthLargest(scores, wanted);
      const chosen: number[] = [];
      for (let row = 0; row < table.count && chosen.length < wanted; row++) if (scores[row]! > threshold) chosen.push(table.ids[row]!);
      for (let row = 0; row < table.count && chosen.length < wanted; row++) if (scores[row] === threshold) chosen.push(table.ids[row]!);
      return chosen;
    },
  };
}

/** The k-th largest value (quickselect on a copy). */
function kthLargest(values: Float32Array, k: number): number {
  const work = Float32Array.from(values);
  let low = 0;
  let high = work.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = work[(low + high) >> 1]!;
    let left = low;
    let right = high;
    while (left <= right) {
      while (work[left]! > pivot) left++;
      while (work[right]! < pivot) right--;
      if (left <= right) {
        const swap = work[left]!;
        work[left++] = work[right]!;
        work[right--] = swap;
      }
    }
    if (target <= right) high = right;
    else if (target >= left) low = left;
    else break;
  }
  return work[target]!;
}
