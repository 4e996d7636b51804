import { createInt8Columns, type Int8Columns } from "./int8-columns.js";

// An in-process copy of one chatbot's vectors for an exact-enough vector arm without a vector
// extension: SQLite uses it, and PostgreSQL without pgvector (docs/retrieval.md, "The vector arm
// in process"). The adapters read the rows; this module holds and scores them.

/** Query dimensions scored in the first pass, at most; enough to hold most of a query's weight. */
const MAX_PROBED_DIMENSIONS = 64;
/** The first pass stops adding dimensions once they hold this share of the query's squared norm. */
const PROBED_ENERGY = 0.85;
/**
 * A query with at most this many non-zero dimensions is sparse (the local embedder's have about
 * 90 of 1,024): its candidates are narrowed to `keep` by int8 cosine over all of them. A denser
 * query's are not: reading every dimension of each would cost as much as reading the
 * candidates' floats back. The int32 sums hold up to 512 dimensions (Int8Columns.weightedSum).
 */
const MAX_SPARSE_DIMENSIONS = 192;
/**
 * The int8 second pass reads one scattered byte per candidate and added dimension; beyond this
 * many it would cost more than it saves.
 */
const MAX_REFINED_DIMENSIONS = 128;
/**
 * A sparse query's candidates are chosen in one pass over all of its dimensions while the
 * chatbot's int8 columns take at most this many bytes, about what a server processor's
 * last-level cache holds: such columns stay there from one query to the next, and reading every
 * row's value of each of the query's dimensions costs less than a second pass's scattered reads.
 * Past it, the columns come from memory at each query, and a second pass over the first pass's
 * candidates is cheaper (docs/retrieval.md, "The vector arm in SQLite", has the measure).
 */
const ONE_PASS_BYTES = 24 * 2 ** 20;

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
 * `keep` under `wanted`, for a sparse query, the `keep` best by int8 cosine instead: over every
 * row in one pass (`cosineScores`) for a table of up to ONE_PASS_BYTES, else among the `wanted`
 * by a second pass (`refineRows`).
 */
export function candidateIds(table: VectorTable, query: Float32Array, wanted: number, keep = wanted): number[] {
  const live = table.count - table.deleted;
  if (live <= wanted) return [...table.rows.keys()];
  const nonZero = nonZeroDimensions(query);
  const sparse = keep < wanted && nonZero.length <= MAX_SPARSE_DIMENSIONS;
  let rows: number[];
  if (sparse && table.count * table.dimensions <= ONE_PASS_BYTES) {
    rows = bestRows(cosineScores(table, query, nonZero), table.count, keep);
  } else {
    const pass = weightedScores(table, query, probedDimensions(query, nonZero));
    rows = bestRows(pass.scores, table.count, wanted);
    if (sparse) rows = refineRows(table, query, pass, rows, keep);
  }
  return rows.map((row) => table.ids[row]!);
}

/** The query's non-zero dimensions, heaviest first (ties by dimension). */
function nonZeroDimensions(query: Float32Array): number[] {
  const nonZero: number[] = [];
  for (let dimension = 0; dimension < query.length; dimension++) if (query[dimension] !== 0) nonZero.push(dimension);
  return nonZero.sort((a, b) => Math.abs(query[b]!) - Math.abs(query[a]!) || a - b);
}

/** The first pass's dimensions: the heaviest, at most MAX_PROBED_DIMENSIONS, until PROBED_ENERGY of the query's squared norm. */
function probedDimensions(query: Float32Array, nonZero: number[]): number[] {
  let total = 0;
  for (const dimension of nonZero) total += query[dimension]! * query[dimension]!;
  const probes: number[] = [];
  let energy = 0;
  for (const dimension of nonZero.slice(0, MAX_PROBED_DIMENSIONS)) {
    probes.push(dimension);
    energy += query[dimension]! * query[dimension]!;
    if (energy >= PROBED_ENERGY * total) break;
  }
  return probes;
}

/** What a pass scored: every row's partial sum, the dimensions it read, and its weights' unit. */
interface Pass {
  scores: Float32Array;
  probes: number[];
  /** The pass's weights are the query's values times this (its largest at 32,767). */
  unit: number;
}

/**
 * Approximate scores of every row: the dot product of its int8 copy with `dimensions` of the
 * query (heaviest first), with the query's weights rounded to 16-bit integers; deleted rows
 * score -Infinity. The scores are the columns' array, reused by the next pass.
 */
function weightedScores(table: VectorTable, query: Float32Array, dimensions: number[]): Pass {
  const largest = dimensions.length === 0 ? 1 : Math.abs(query[dimensions[0]!]!);
  const weights = dimensions.map((dimension) => Math.round((query[dimension]! * 32_767) / largest));
  table.columns.weightedSum(dimensions, weights, table.count);
  return { scores: table.columns.scaledSums(table.count), probes: dimensions, unit: 32_767 / largest };
}

/**
 * Every row's cosine with the query on its int8 copy, in one pass: the dot product over all of
 * the query's non-zero dimensions over the row's exact norm (a factor common to every row left
 * out); deleted rows score -Infinity. It differs from the exact cosine by the rounding of each
 * value (at most half a scale step), so `keep` needs a margin over the k finally wanted.
 */
function cosineScores(table: VectorTable, query: Float32Array, nonZero: number[]): Float32Array {
  const { scores } = weightedScores(table, query, nonZero);
  const { norms } = table;
  for (let row = 0; row < table.count; row++) {
    const norm = norms[row]!;
    if (norm !== 0) scores[row] = scores[row]! / norm;
    else if (scores[row] !== Number.NEGATIVE_INFINITY) scores[row] = 0;
  }
  return scores;
}

/**
 * The `keep` best of `rows` by cosine on their int8 copies: the first pass's partial sums plus
 * the query's other non-zero dimensions, over each row's exact norm. It reads one scattered byte
 * per row and added dimension; with more than MAX_REFINED_DIMENSIONS of those, `rows` are
 * returned as they are. As in `cosineScores`, `keep` needs a margin over the k finally wanted.
 */
function refineRows(table: VectorTable, query: Float32Array, pass: Pass, rows: number[], keep: number): number[] {
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
