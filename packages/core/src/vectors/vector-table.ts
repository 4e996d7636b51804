import { createInt8Columns, type Int8Columns } from "./int8-columns.js";

// An in-process copy of one chatbot's vectors for an exact-enough vector arm without a vector
// extension: SQLite uses it, and PostgreSQL without pgvector (docs/retrieval.md, "The vector arm
// in process"). The adapters read the rows; this module holds and scores them.

/** Query dimensions scored in the first pass, at most; enough to hold most of a query's weight. */
const MAX_PROBED_DIMENSIONS = 64;
/** The first pass stops adding dimensions once they hold this share of the query's squared norm. */
const PROBED_ENERGY = 0.85;
/**
 * The int8 second pass runs for queries with at most this many non-zero dimensions: it reads one
 * scattered byte per candidate and dimension, so for a dense query it costs as much as reading
 * the candidates' floats back (0.7 ms for 100 candidates at 1,024 dimensions).
 */
const MAX_REFINED_DIMENSIONS = 128;

/** What a chatbot's copy follows: `generation` bumped by every write, `epoch` when vectors are replaced in place. */
export interface VectorState {
  generation: number;
  epoch: number;
  dimensions: number;
}

/** One chatbot's vectors as int8, dimension-major, for a partial dot product over a few dimensions. */
export interface VectorTable {
  generation: number;
  epoch: number;
  readonly dimensions: number;
  capacity: number;
  count: number;
  ids: Float64Array;
  /** Per row: the int8 → float scale; 0 marks a deleted row (the columns' own array). */
  scales: Float32Array;
  /** Per row: the Euclidean norm of the exact vector (for the int8 second pass's cosine). */
  norms: Float32Array;
  /** Column d of row r at d * capacity + r, in WebAssembly memory. */
  columns: Int8Columns;
  /** The exact vectors by id, when the table keeps them (to re-score without reading them back). */
  floats: Map<number, Float32Array> | undefined;
  /** Row of each live id. */
  rows: Map<number, number>;
  /** The highest id appended: newer rows are read after it. */
  lastId: number;
  deleted: number;
}

/**
 * An empty table for vectors of `dimensions`, keeping exact copies when `keepFloats`, with room
 * for `rows` (a loader that knows how many it reads passes them: the columns are then allocated
 * once, not doubled up to the size with every smaller copy left for the collector).
 */
export function createVectorTable(state: VectorState, keepFloats: boolean, rows = 0): VectorTable {
  const columns = createInt8Columns(state.dimensions, Math.max(rows, 256));
  return {
    generation: state.generation,
    epoch: state.epoch,
    dimensions: state.dimensions,
    capacity: columns.capacity,
    count: 0,
    lastId: 0,
    deleted: 0,
    ids: new Float64Array(columns.capacity),
    scales: columns.scales,
    norms: new Float32Array(columns.capacity),
    columns,
    floats: keepFloats ? new Map() : undefined,
    rows: new Map(),
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
  const scales = columns.scales;
  scales.set(table.scales.subarray(0, table.count));
  const norms = new Float32Array(capacity);
  norms.set(table.norms.subarray(0, table.count));
  Object.assign(table, { capacity, columns, ids, scales, norms });
}

/** Adds one vector; one of another dimension (a stale row of another space) or an id already held is skipped. */
export function appendVector(table: VectorTable, id: number, vector: Float32Array): void {
  if (vector.length !== table.dimensions || table.rows.has(id)) return;
  grow(table, table.count + 1);
  const row = table.count++;
  let largest = 0;
  let squares = 0;
  for (const value of vector) {
    largest = Math.max(largest, Math.abs(value));
    squares += value * value;
  }
  const scale = largest === 0 ? 0 : largest / 127;
  for (let dimension = 0; dimension < table.dimensions; dimension++) {
    table.columns.values[dimension * table.capacity + row] = scale === 0 ? 0 : Math.round(vector[dimension]! / scale);
  }
  table.ids[row] = id;
  table.scales[row] = scale === 0 ? Number.MIN_VALUE : scale;
  table.norms[row] = Math.sqrt(squares);
  table.rows.set(id, row);
  table.floats?.set(id, Float32Array.from(vector));
  table.lastId = Math.max(table.lastId, id);
}

/** Masks every row whose id is no longer in the database. */
export function removeMissing(table: VectorTable, present: ReadonlySet<number>): void {
  for (const [id, row] of table.rows) {
    if (present.has(id)) continue;
    table.scales[row] = 0;
    table.rows.delete(id);
    table.floats?.delete(id);
    table.deleted++;
  }
}

/**
 * How a held table catches up with `state`: `fresh` (it already matches), `update` (new ids
 * appended and deleted ones masked: only rows were added or removed) or `reload` (vectors were
 * replaced in place, the space changed, or a quarter of the rows are masked).
 */
export function refreshKind(table: VectorTable | undefined, state: VectorState): "fresh" | "update" | "reload" {
  if (table !== undefined && table.generation === state.generation && table.epoch === state.epoch && table.dimensions === state.dimensions) return "fresh";
  if (table === undefined || table.epoch !== state.epoch || table.dimensions !== state.dimensions || table.deleted > table.count / 4) return "reload";
  return "update";
}

/** Bytes a table holds in memory (its int8 columns and exact copies). */
export const tableBytes = (table: VectorTable) => table.columns.values.byteLength + (table.floats === undefined ? 0 : table.rows.size * table.dimensions * 4);

/**
 * Tables of several chatbots within `maxBytes`, the least recently used dropped first. `get`
 * marks a table as used; `set` stores one and drops the oldest others over the budget.
 */
export function createVectorTables(maxBytes: number) {
  const tables = new Map<number, VectorTable>();
  return {
    get(bot: number): VectorTable | undefined {
      const table = tables.get(bot);
      if (table !== undefined) {
        tables.delete(bot); // re-inserted: the Map's order is the recency order
        tables.set(bot, table);
      }
      return table;
    },
    set(bot: number, table: VectorTable): void {
      tables.delete(bot);
      tables.set(bot, table);
      let bytes = 0;
      for (const cached of tables.values()) bytes += tableBytes(cached);
      for (const [oldest, cached] of tables) {
        if (bytes <= maxBytes || oldest === bot) break;
        bytes -= tableBytes(cached);
        tables.delete(oldest);
      }
    },
    delete(bot: number): void {
      tables.delete(bot);
    },
  };
}

/**
 * Ids of the `wanted` chunks with the best partial dot product with `query`, unordered; with
 * `keep` under `wanted`, only the `keep` best of those by a second pass (`refineRows`), when the
 * query is sparse enough for it.
 */
export function candidateIds(table: VectorTable, query: Float32Array, wanted: number, keep = wanted): number[] {
  const live = table.count - table.deleted;
  if (live <= wanted) return [...table.rows.keys()];
  const pass = firstPass(table, query);
  const rows = bestRows(pass.scores, table.count, wanted);
  return (keep < rows.length ? refineRows(table, query, pass, rows, keep) : rows).map((row) => table.ids[row]!);
}

/** What the first pass scored: every row's partial sum, the dimensions it read, and its weights' unit. */
interface FirstPass {
  scores: Float32Array;
  probes: number[];
  /** The first pass's weights are the query's values times this (its largest at 32,767). */
  unit: number;
}

/**
 * The `keep` best of `rows` by cosine on their int8 copies: the first pass's partial sums plus
 * the query's other non-zero dimensions, over each row's exact norm. It reads one scattered byte
 * per row and added dimension, so it runs only when those are few (a sparse query, such as the
 * local embedder's: about 90 of 1,024 dimensions, 64 of them already read); otherwise `rows` are
 * returned as they are. The int8 cosine differs from the exact one by the rounding of each value
 * (at most half a scale step), so `keep` needs a margin over the k finally wanted.
 */
function refineRows(table: VectorTable, query: Float32Array, pass: FirstPass, rows: number[], keep: number): number[] {
  const probed = new Set(pass.probes);
  const rest: number[] = [];
  for (let dimension = 0; dimension < query.length; dimension++) {
    if (query[dimension] === 0 || probed.has(dimension)) continue;
    if (rest.length === MAX_REFINED_DIMENSIONS) return rows;
    rest.push(dimension);
  }
  const { values } = table.columns;
  const { capacity, scales, norms } = table;
  // Column by column, rows in ascending order: each column's reads go one way through memory.
  const ascending = Int32Array.from(rows).sort();
  const dots = new Float64Array(ascending.length);
  for (const dimension of rest) {
    const weight = query[dimension]!;
    const column = dimension * capacity;
    for (let index = 0; index < ascending.length; index++) dots[index]! += weight * values[column + ascending[index]!]!;
  }
  const scored = Array.from(ascending, (row, index) => {
    const norm = norms[row]!;
    return { row, score: norm === 0 ? 0 : (pass.scores[row]! + pass.unit * dots[index]! * scales[row]!) / norm };
  });
  scored.sort((a, b) => b.score - a.score || a.row - b.row);
  return scored.slice(0, keep).map(({ row }) => row);
}

/** Cosine similarity; 0 when either vector is zero (no direction), as the databases score it. */
export function cosineSimilarity(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    const x = a[index]!;
    const y = b[index]!;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

/**
 * The `k` best of the table's vectors by exact cosine with `query`: the first pass's candidates
 * re-scored on the exact copies (the table must keep them), best first, ties by id.
 */
export function nearestByCosine(table: VectorTable, query: Float32Array, k: number, oversampled: number): { id: number; score: number }[] {
  const floats = table.floats;
  if (floats === undefined) throw new Error("nearestByCosine needs a table that keeps its exact vectors");
  const scored = candidateIds(table, query, oversampled).map((id) => ({ id, score: cosineSimilarity(floats.get(id)!, query) }));
  scored.sort((a, b) => b.score - a.score || a.id - b.id);
  return scored.slice(0, k);
}

/**
 * Approximate scores of every row: the dot product of its int8 copy with the query's heaviest
 * dimensions (at most MAX_PROBED_DIMENSIONS, until PROBED_ENERGY of the query's squared norm),
 * with the query's weights rounded to 16-bit integers; deleted rows score -Infinity.
 */
function firstPass(table: VectorTable, query: Float32Array): FirstPass {
  let total = 0;
  const nonZero: number[] = [];
  for (let dimension = 0; dimension < query.length; dimension++) {
    const value = query[dimension]!;
    total += value * value;
    if (value !== 0) nonZero.push(dimension);
  }
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
  table.columns.weightedSum(probes, weights, table.count);
  return { scores: table.columns.scaledSums(table.count), probes, unit: 32_767 / largest };
}

/** Rows sampled to estimate the first pass's cut-off score. */
const SAMPLE_ROWS = 4096;

/**
 * The rows of the `wanted` highest scores among the first `count` (ties broken by row order),
 * unordered, without sorting them all: a threshold from an evenly spaced sample that about three
 * times `wanted` rows exceed, then an exact choice among those by selection; the full selection
 * only when the sample misjudged.
 */
function bestRows(scores: Float32Array, count: number, wanted: number): number[] {
  const step = Math.max(1, Math.floor(count / SAMPLE_ROWS));
  const sample = new Float32Array(Math.ceil(count / step));
  for (let row = 0, index = 0; row < count; row += step) sample[index++] = scores[row]!;
  // The value a full ascending sort would put at index length - 1 - m, by selection: sorting the
  // sample was the slowest step.
  let threshold = kthLargest(sample, Math.min(sample.length, 1 + Math.ceil((3 * wanted * sample.length) / count)));
  let above = rowsAbove(scores, count, threshold);
  if (above.length < wanted) {
    threshold = kthLargest(scores.slice(0, count), wanted);
    above = rowsAbove(scores, count, threshold);
  }
  if (above.length > wanted) {
    // The wanted best of those: every row above the wanted-th best score, then rows at it in row order.
    const cut = kthLargest(Float32Array.from(above, (row) => scores[row]!), wanted);
    const best = above.filter((row) => scores[row]! > cut);
    for (const row of above) {
      if (best.length === wanted) break;
      if (scores[row] === cut) best.push(row);
    }
    return best;
  }
  for (let row = 0; row < count && above.length < wanted; row++) if (scores[row] === threshold) above.push(row);
  return above;
}

function rowsAbove(scores: Float32Array, count: number, threshold: number): number[] {
  const rows: number[] = [];
  for (let row = 0; row < count; row++) if (scores[row]! > threshold) rows.push(row);
  return rows;
}

/** The k-th largest value (1-based; quickselect, which reorders `work`). Also the keyword arm's (SQLite's MaxScore). */
export function kthLargest(work: Float32Array | Float64Array, k: number): number {
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
