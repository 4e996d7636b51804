// The in-process posting table of a chatbot and the pure pieces the posting cache
// (sqlite-search-index-bm25.ts) builds it and ranks with: FTS5's varints, growable postings and
// rows, and the top k by score.

/** One term's postings: row indexes into the table's row arrays and the weighted term frequency. */
export interface Postings {
  /** Ascending: rows are numbered in id order, and new ones are appended after. */
  rows: Int32Array;
  freqs: Float64Array;
  length: number;
  /** The largest frequency (frequencies only grow, or are added). */
  max: number;
}

/** One chatbot's FTS5 index as postings, scored in process with FTS5's exact bm25. */
export interface PostingTable {
  generation: number;
  terms: Map<string, Postings>;
  ids: Float64Array;
  /** Tokens in the row over all columns (FTS5's D); -1 marks a deleted row. */
  sizes: Float64Array;
  /** k1 * (1 - b + b * D / avgdl) per row, as FTS5 computes it. */
  norms: Float64Array;
  /** The smallest of `norms` over live rows, for a term's highest possible score. */
  minNorm: number;
  count: number;
  deleted: number;
  rows: Map<number, number>;
  lastId: number;
  /** FTS5's own totals: rows and tokens over all columns. */
  totalRows: number;
  totalTokens: number;
  /** Bytes of the arrays, as of the last refresh. */
  bytes: number;
  /** Per row: the last query that touched it (for a sparse accumulator). */
  stamps: Uint32Array;
  scores: Float64Array;
  /** Scratch of a search: the rows it scored (reused, so a search allocates nothing per posting). */
  touched: Int32Array;
  stamp: number;
  /** Words still to read ahead of any query (warm), most frequent last; undefined until a warm-up starts. */
  unread?: string[];
}

/** A scored row: FTS5's bm25 as a positive number (FTS5 returns its negation). */
export interface ScoredRow {
  id: number;
  score: number;
}


/** SQLite's varint (as FTS5 stores its totals and sizes): big-endian 7-bit groups, the 9th byte whole. */
export function readVarints(blob: Buffer): number[] {
  const values: number[] = [];
  let offset = 0;
  while (offset < blob.length) {
    let value = 0;
    let index = 0;
    for (; index < 8 && offset < blob.length; index++) {
      const byte = blob[offset++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) break;
    }
    if (index === 8 && offset < blob.length) value = value * 256 + blob[offset++]!;
    values.push(value);
  }
  return values;
}

export function push(postings: Postings, row: number, freq: number): void {
  if (postings.length === postings.rows.length) {
    const capacity = postings.rows.length * 2;
    const rows = new Int32Array(capacity);
    rows.set(postings.rows);
    const freqs = new Float64Array(capacity);
    freqs.set(postings.freqs);
    postings.rows = rows;
    postings.freqs = freqs;
  }
  postings.rows[postings.length] = row;
  postings.freqs[postings.length++] = freq;
  if (freq > postings.max) postings.max = freq;
}

/** The index of `row` in the postings (binary search), or -1. */
export function findRow(postings: Postings, row: number): number {
  const { rows } = postings;
  let low = 0;
  let high = postings.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = rows[middle]!;
    if (found === row) return middle;
    if (found < row) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

export function growRows(table: PostingTable, needed: number): void {
  if (needed <= table.ids.length) return;
  const capacity = Math.max(needed, table.ids.length * 2, 256);
  const copy = <T extends Float64Array | Uint32Array>(old: T, make: (n: number) => T): T => {
    const fresh = make(capacity);
    fresh.set(old);
    return fresh;
  };
  table.ids = copy(table.ids, (n) => new Float64Array(n));
  table.sizes = copy(table.sizes, (n) => new Float64Array(n));
  table.norms = new Float64Array(capacity);
  table.scores = new Float64Array(capacity);
  table.stamps = new Uint32Array(capacity);
  table.touched = new Int32Array(capacity);
  table.stamp = 0;
}

/** The k best rows by score, ties by id, best first (a bounded min-heap over the touched rows). */
export function topK(touched: Int32Array, scores: Float64Array, ids: Float64Array, k: number): ScoredRow[] {
  const heap: number[] = [];
  // worse(a, b): a ranks below b.
  const worse = (a: number, b: number) => scores[a]! < scores[b]! || (scores[a] === scores[b] && ids[a]! > ids[b]!);
  const siftDown = (start: number) => {
    let index = start;
    for (;;) {
      const left = 2 * index + 1;
      const right = left + 1;
      let smallest = index;
      if (left < heap.length && worse(heap[left]!, heap[smallest]!)) smallest = left;
      if (right < heap.length && worse(heap[right]!, heap[smallest]!)) smallest = right;
      if (smallest === index) return;
      [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
      index = smallest;
    }
  };
  // The heap's worst row, kept in locals: most rows rank below it and are dismissed by one
  // comparison, without a call (the loop runs once per touched row, tens of thousands a query).
  let floorScore = -Infinity;
  let floorId = Infinity;
  for (let index = 0; index < touched.length; index++) {
    const row = touched[index]!;
    if (heap.length === k) {
      const score = scores[row]!;
      if (score < floorScore || (score === floorScore && ids[row]! > floorId)) continue;
    }
    if (heap.length < k) {
      heap.push(row);
      let index = heap.length - 1;
      while (index > 0) {
        const parent = (index - 1) >> 1;
        if (!worse(heap[index]!, heap[parent]!)) break;
        [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
        index = parent;
      }
    } else if (worse(heap[0]!, row)) {
      heap[0] = row;
      siftDown(0);
    }
    if (heap.length === k) {
      floorScore = scores[heap[0]!]!;
      floorId = ids[heap[0]!]!;
    }
  }
  return heap.sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0)).map((row) => ({ id: ids[row]!, score: scores[row]! }));
}
