import type { Database } from "better-sqlite3";
import { createInt8Columns, type Int8Columns } from "./int8-columns.js";

/** Query dimensions scored in the first pass, at most; enough to hold most of a query's weight. */
const MAX_PROBED_DIMENSIONS = 64;
/** The first pass stops adding dimensions once they hold this share of the query's squared norm. */
const PROBED_ENERGY = 0.85;

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
  /** Column d of row r at d * capacity + r, in WebAssembly memory. */
  columns: Int8Columns;
  rows: Map<number, number>;
  lastId: number;
  deleted: number;
}

const floatsOf = (blob: Buffer) =>
  blob.byteOffset % 4 === 0 ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4) : new Float32Array(Uint8Array.from(blob).buffer);

function emptyTable(dimensions: number, capacity: number, generation: number, epoch: number): VectorTable {
  const columns = createInt8Columns(dimensions, capacity);
  return {
    generation, epoch, dimensions, capacity: columns.capacity, count: 0, lastId: 0, deleted: 0,
    ids: new Float64Array(columns.capacity), scales: new Float32Array(columns.capacity), columns, rows: new Map(),
  };
}

function grow(table: VectorTable, needed: number): void {
  if (needed <= table.capacity) return;
  const columns = createInt8Columns(table.dimensions, Math.max(needed, table.capacity * 2, 256));
  const { capacity } = columns;
  for (let dimension = 0; dimension < table.dimensions; dimension++) {
    const start = dimension * table.capacity;
    columns.values.set(table.columns.values.subarray(start, start + table.count), dimension * capacity);
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
    table.columns.values[dimension * table.capacity + row] = scale === 0 ? 0 : Math.round(vector[dimension]! / scale);
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
    for (const cached of tables.values()) bytes += cached.columns.values.byteLength;
    for (const [oldest, cached] of tables) {
      if (bytes <= CACHE_BYTES || oldest === bot) break;
      bytes -= cached.columns.values.byteLength;
      tables.delete(oldest);
    }
    return table;
  };

  return {
    /** Ids of the `wanted` chunks with the best partial dot product with `query`, unordered. */
    candidates(bot: number, state: { generation: number; epoch: number; dimensions: number }, query: Float32Array, wanted: number): number[] {
      const table = refresh(bot, state.generation, state.epoch, state.dimensions);
      const live = table.count - table.deleted;
      if (live <= wanted) return [...table.rows.keys()];
      return bestRows(firstPass(table, query), table.count, wanted).map((row) => table.ids[row]!);
    },
  };
}

/** Scores of the first pass, reused by every search (one runs at a time: all of it is synchronous). */
let scratch = new Float32Array(0);

/**
 * Approximate scores of every row: the dot product of its int8 copy with the query's heaviest
 * dimensions (at most MAX_PROBED_DIMENSIONS, until PROBED_ENERGY of the query's squared norm),
 * with the query's weights rounded to 16-bit integers; deleted rows score -Infinity.
 */
function firstPass(table: VectorTable, query: Float32Array): Float32Array {
  let total = 0;
  const nonZero: number[] = [];
  query.forEach((value, dimension) => {
    total += value * value;
    if (value !== 0) nonZero.push(dimension);
  });
  nonZero.sort((a, b) => Math.abs(query[b]!) - Math.abs(query[a]!) || a - b);
  const probes: number[] = [];
  let energy = 0;
  for (const dimension of nonZero.slice(0, MAX_PROBED_DIMENSIONS)) {
    probes.push(dimension);
    energy += query[dimension]! * query[dimension]!;
    if (energy >= PROBED_ENERGY * total) break;
  }
  // Weights as 16-bit integers, the largest at 32,767 (Int8Columns.weightedSum).
  const largest = probes.length === 0 ? 1 : Math.abs(query[probes[0]!]!);
  const weights = probes.map((dimension) => Math.round((query[dimension]! * 32_767) / largest));
  const { count, scales } = table;
  const sums = table.columns.weightedSum(probes, weights, count);
  if (scratch.length < count) scratch = new Float32Array(table.capacity);
  for (let row = 0; row < count; row++) scratch[row] = scales[row] === 0 ? -Infinity : sums[row]! * scales[row]!;
  return scratch;
}

/** Rows sampled to estimate the first pass's cut-off score. */
const SAMPLE_ROWS = 4096;

/**
 * The rows of the `wanted` highest scores among the first `count` (ties broken by row order),
 * without sorting them all: a threshold from an evenly spaced sample that about three times
 * `wanted` rows exceed, then an exact choice among those; the full selection only when the
 * sample misjudged.
 */
function bestRows(scores: Float32Array, count: number, wanted: number): number[] {
  const step = Math.max(1, Math.floor(count / SAMPLE_ROWS));
  const sample = new Float32Array(Math.ceil(count / step));
  for (let row = 0, index = 0; row < count; row += step) sample[index++] = scores[row]!;
  sample.sort(); // ascending, natively: a comparator made this the slowest step
  let threshold = sample[Math.max(0, sample.length - 1 - Math.ceil((3 * wanted * sample.length) / count))]!;
  let above = rowsAbove(scores, count, threshold);
  if (above.length < wanted) {
    threshold = kthLargest(scores.subarray(0, count), wanted);
    above = rowsAbove(scores, count, threshold);
  }
  above.sort((a, b) => scores[b]! - scores[a]! || a - b);
  if (above.length >= wanted) return above.slice(0, wanted);
  for (let row = 0; row < count && above.length < wanted; row++) if (scores[row] === threshold) above.push(row);
  return above;
}

function rowsAbove(scores: Float32Array, count: number, threshold: number): number[] {
  const rows: number[] = [];
  for (let row = 0; row < count; row++) if (scores[row]! > threshold) rows.push(row);
  return rows;
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
