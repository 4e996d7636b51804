import type { Database, Statement } from "better-sqlite3";
import { kthLargest } from "@parley/core/vectors";
import { findRow, growRows, push, readVarints, topK, type Postings, type PostingTable, type ScoredRow } from "./sqlite-search-index-postings.js";
import { keepingReadCaches } from "./sqlite-storage-read-cache.js";

/** Bytes of in-process postings kept across chatbots; the least recently searched are dropped first. */
const CACHE_BYTES = 256 * 2 ** 20;
/** Query words whose FTS5 tokens are remembered (the tokenizer is fixed, so they never go stale). */
const MAX_REMEMBERED_WORDS = 50_000;
/** Rows added since the last load past which a refresh reloads everything instead of appending. */
const MAX_APPENDED_SHARE = 0.25;

// FTS5's bm25 constants (sqlite3.c, fts5Bm25Function).
const K1 = 1.2;
const B = 0.75;

/**
 * The scoring of a keyword search, in process: each chatbot's FTS5 index read back as postings
 * (term → rows with their weighted title and body frequencies, read through `fts5vocab`, so the
 * terms are exactly FTS5's tokens) and scored term-at-a-time with FTS5's bm25: the same k1, b,
 * IDF floor, weighted frequency, row size (FTS5's _docsize) and FTS5's own stored totals for N
 * and the average length. FTS5 computes bm25 for every row matching any word through its C API
 * per row; this touches each posting at most once with a multiply-add (the common terms of a
 * long query only for the rows that can still win: `bestOfPruned`). A term's postings are read from
 * FTS5 the first time a query needs them (about the cost of one FTS5 query on that word); the
 * rows' sizes when the chatbot is first searched. The copy follows the chatbot's `generation`:
 * deleted rows are masked (found by range counts), new rows appended (their text tokenized by a
 * scratch FTS5 table with the same tokenizer), and the copy started afresh when much changed.
 * Null (the caller queries FTS5) for a query word FTS5 splits into a phrase, or a chatbot whose
 * FTS5 token total could exceed the memory budget.
 */
export function createPostingCache(database: Database, options: { titleWeight: number; cacheBytes?: number }) {
  const cacheBytes = options.cacheBytes ?? CACHE_BYTES;
  const tables = new Map<number, PostingTable>();
  const remembered = new Map<string, string | null>();
  const prepared = new Map<
    number,
    {
      frequent: Statement<[]>;
      totals: Statement<[]>;
      docsizes: Statement<[number]>;
      countBetween: Statement<[number, number]>;
      idsBetween: Statement<[number, number]>;
      term: Statement<[string], { docs: string; titles: string }>;
    }
  >();
  let scratch: { insert: Statement<[number, string, string]>; read: Statement<[]>; clear: Statement<[]> } | undefined;
  const newer = database.prepare<[number, number], { id: number; title: string; body: string }>(
    "SELECT id, title, body FROM search_chunks WHERE bot = ? AND id > ? ORDER BY id",
  );

  /** The scratch table's statements, creating it first if this connection has none. */
  const scratchStatements = () => {
    if (scratch === undefined) {
      database.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.parley_tokenize USING fts5 (title, body, content = '', tokenize = 'porter unicode61')");
      database.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.parley_tokenize_terms USING fts5vocab (temp, parley_tokenize, instance)");
      scratch = {
        insert: database.prepare("INSERT INTO temp.parley_tokenize (rowid, title, body) VALUES (?, ?, ?)"),
        read: database.prepare("SELECT doc, col, term FROM temp.parley_tokenize_terms"),
        clear: database.prepare("INSERT INTO temp.parley_tokenize (parley_tokenize) VALUES ('delete-all')"),
      };
      tablesMade();
    }
    return scratch;
  };

  /**
   * Tokens of rows through a temporary FTS5 table with the same tokenizer: [rowid, column, term].
   * Through the read caches' keepingCache: the scratch table's rows (and its creation) count in
   * total_changes(), and would otherwise empty the storage's cache of keys and chatbots on this
   * connection at every query with a new word.
   */
  const tokenize = (rows: { id: number; title: string; body: string }[]): [number, number, string][] =>
    keepingReadCaches(database, () => {
      const { insert, read, clear } = scratchStatements();
      try {
        for (const row of rows) insert.run(row.id, row.title, row.body);
        return (read.raw(true).all() as [number, string, string][]).map(([doc, col, term]) => [doc, col === "title" ? 0 : 1, term]);
      } finally {
        clear.run();
      }
    });

  // The temporary tables are made inside a search's transaction, so a rollback of it (or of a
  // caller's transaction around it) takes them away while their statements stay prepared here.
  // The temp schema's version, read as each search or warm-up slice starts, tells: when it is
  // not the one seen after the tables were last made, they are made again at their next use.
  const tempSchemaVersion = database.prepare("PRAGMA temp.schema_version").pluck();
  let madeAtVersion: number | undefined;
  const forgetRolledBackTables = () => {
    if (madeAtVersion === undefined || tempSchemaVersion.get() === madeAtVersion) return;
    prepared.clear();
    scratch = undefined;
    madeAtVersion = undefined;
  };
  const tablesMade = () => {
    madeAtVersion = tempSchemaVersion.get() as number;
  };

  /** Each word's FTS5 term, or null when FTS5 makes it no term or a phrase of several. */
  const termsOf = (words: string[]): (string | null)[] => {
    const unknown = words.filter((word) => !remembered.has(word));
    if (unknown.length > 0) {
      const found = new Map<number, string[]>();
      for (const [doc, , term] of tokenize(unknown.map((word, index) => ({ id: index + 1, title: word, body: "" })))) {
        const list = found.get(doc) ?? [];
        list.push(term);
        found.set(doc, list);
      }
      if (remembered.size + unknown.length > MAX_REMEMBERED_WORDS) remembered.clear();
      unknown.forEach((word, index) => {
        const terms = found.get(index + 1);
        remembered.set(word, terms?.length === 1 ? terms[0]! : null);
      });
    }
    return words.map((word) => remembered.get(word) ?? null);
  };

  const statementsFor = (table: string) => {
    const key = Number(table.slice("search_fts_".length));
    let statements = prepared.get(key);
    if (statements === undefined) {
      database.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_instances USING fts5vocab (main, ${table}, instance)`);
      database.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${table}_words USING fts5vocab (main, ${table}, row)`);
      statements = {
        frequent: database.prepare(`SELECT term FROM temp.${table}_words ORDER BY doc`),
        totals: database.prepare(`SELECT block FROM ${table}_data WHERE id = 1`),
        docsizes: database.prepare(`SELECT id, sz FROM ${table}_docsize WHERE id > ?`),
        countBetween: database.prepare(`SELECT count(*) FROM ${table}_docsize WHERE id BETWEEN ? AND ?`),
        idsBetween: database.prepare(`SELECT id FROM ${table}_docsize WHERE id BETWEEN ? AND ?`),
        // One row holding every instance as two JSON arrays: materialising a JS row per instance
        // cost several times more.
        term: database.prepare(
          `SELECT json_group_array(doc) AS docs, json_group_array(col = 'title') AS titles FROM temp.${table}_instances WHERE term = ?`,
        ),
      };
      prepared.set(key, statements);
      tablesMade();
    }
    return statements;
  };

  const emptyTable = (generation: number): PostingTable => ({
    generation, terms: new Map(), ids: new Float64Array(0), sizes: new Float64Array(0), norms: new Float64Array(0),
    minNorm: Infinity, count: 0, deleted: 0, rows: new Map(), lastId: 0, totalRows: 0, totalTokens: 0, bytes: 0,
    stamps: new Uint32Array(0), scores: new Float64Array(0), touched: new Int32Array(0), stamp: 0,
  });

  /** Adds `count` instances of a term in a column of a row (the row's last posting if it is that row's). */
  const addInstances = (postings: Postings, row: number, column: number, count: number) => {
    const weight = column === 0 ? options.titleWeight : 1;
    // FTS5 adds the column's weight once per instance; title and body of one row share a posting.
    if (postings.length > 0 && postings.rows[postings.length - 1] === row) {
      let freq = postings.freqs[postings.length - 1]!;
      for (let instance = 0; instance < count; instance++) freq += weight;
      postings.freqs[postings.length - 1] = freq;
      if (freq > postings.max) postings.max = freq;
      return;
    }
    let freq = 0;
    for (let instance = 0; instance < count; instance++) freq += weight;
    push(postings, row, freq);
  };

  const addRow = (table: PostingTable, id: number, size: number): number => {
    growRows(table, table.count + 1);
    const row = table.count++;
    table.ids[row] = id;
    table.sizes[row] = size;
    table.rows.set(id, row);
    table.lastId = Math.max(table.lastId, id);
    table.bytes += 40;
    return row;
  };

  /** Rows FTS5 holds past `after`, with their sizes over all columns (from its _docsize table). */
  const newRows = (ftsTable: string, after: number) =>
    (statementsFor(ftsTable).docsizes.raw(true).all(after) as [number, Buffer][]).map(
      ([id, sz]) => [id, readVarints(sz).reduce((sum, value) => sum + value, 0)] as const,
    );

  /** A term's postings, read from FTS5 the first time a query needs them (one row per instance). */
  const postingsOf = (table: PostingTable, ftsTable: string, term: string): Postings => {
    let postings = table.terms.get(term);
    if (postings !== undefined) return postings;
    postings = { rows: new Int32Array(16), freqs: new Float64Array(16), length: 0, max: 0 };
    // Instances ordered by rowid, then column and offset; both arrays built in the same pass.
    const instances = statementsFor(ftsTable).term.get(term)!;
    const docs = JSON.parse(instances.docs) as number[];
    const titles = JSON.parse(instances.titles) as number[];
    let lastDoc = -1;
    let row: number | undefined;
    docs.forEach((doc, instance) => {
      if (doc !== lastDoc) {
        lastDoc = doc;
        row = table.rows.get(doc);
      }
      if (row === undefined) return; // a deleted row FTS5 has not yet purged
      addInstances(postings, row, titles[instance] === 1 ? 0 : 1, 1);
    });
    postings.rows = postings.rows.slice(0, postings.length); // drop the growth slack
    postings.freqs = postings.freqs.slice(0, postings.length);
    table.terms.set(term, postings);
    table.bytes += postings.length * 12 + 256;
    return postings;
  };

  /**
   * Masks the rows of [low, high) (row indexes, ascending ids) that FTS5 no longer holds: a range
   * whose count in FTS5 matches ours is skipped, others are halved, so a deleted document (a run
   * of consecutive ids) costs a few range counts instead of a scan of every id.
   */
  const maskDeleted = (table: PostingTable, ftsTable: string, low: number, high: number): void => {
    let expected = 0;
    for (let row = low; row < high; row++) if (table.sizes[row]! >= 0) expected++;
    if (expected === 0) return;
    const statements = statementsFor(ftsTable);
    const first = table.ids[low]!;
    const last = table.ids[high - 1]!;
    if ((statements.countBetween.pluck().get(first, last) as number) === expected) return;
    if (high - low <= 256) {
      const live = new Set(statements.idsBetween.pluck().all(first, last) as number[]);
      for (let row = low; row < high; row++) {
        if (table.sizes[row]! < 0 || live.has(table.ids[row]!)) continue;
        table.sizes[row] = -1;
        table.rows.delete(table.ids[row]!);
        table.deleted++;
      }
      return;
    }
    const middle = (low + high) >> 1;
    maskDeleted(table, ftsTable, low, middle);
    maskDeleted(table, ftsTable, middle, high);
  };

  /** Brings the copy to the snapshot's generation; a new copy when there is none or much changed. */
  const update = (key: number, ftsTable: string, generation: number, table: PostingTable | undefined): PostingTable => {
    const statements = statementsFor(ftsTable);
    if (table !== undefined) {
      const previousLast = table.lastId;
      if (table.count > 0) maskDeleted(table, ftsTable, 0, table.count);
      const added = newRows(ftsTable, previousLast);
      if (added.length > MAX_APPENDED_SHARE * table.count || table.deleted > table.count / 4) {
        table = undefined;
      } else if (added.length > 0) {
        for (const [id, size] of added) addRow(table, id, size);
        if (table.terms.size > 0) {
          // Terms already read get the new rows' postings, tokenized by the scratch FTS5 table.
          const texts = newer.all(key, previousLast).filter((row) => table!.rows.has(row.id));
          const tokens = tokenize(texts).map(([doc, column, term]) => [table!.rows.get(doc)!, column, term] as const);
          tokens.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          for (const [row, column, term] of tokens) {
            const postings = table.terms.get(term);
            if (postings === undefined) continue; // read from FTS5, new rows included, when first needed
            const length = postings.length;
            addInstances(postings, row, column, 1);
            table.bytes += (postings.length - length) * 12;
          }
        }
      }
      if (table !== undefined) table.generation = generation;
    }
    if (table === undefined) {
      table = emptyTable(generation);
      for (const [id, size] of newRows(ftsTable, 0)) addRow(table, id, size);
    }
    const totals = readVarints((statements.totals.pluck().get() as Buffer | undefined) ?? Buffer.alloc(0));
    table.totalRows = totals[0] ?? 0;
    table.totalTokens = (totals[1] ?? 0) + (totals[2] ?? 0);
    const average = table.totalTokens / table.totalRows;
    table.minNorm = Infinity;
    for (let row = 0; row < table.count; row++) {
      const norm = K1 * (1 - B + (B * table.sizes[row]!) / average);
      table.norms[row] = norm;
      if (table.sizes[row]! >= 0 && norm < table.minNorm) table.minNorm = norm;
    }
    return table;
  };

  const refresh = (key: number, ftsTable: string, generation: number): PostingTable | null => {
    let table = tables.get(key);
    tables.delete(key); // re-inserted below: the Map's order is the recency order
    if (table === undefined) {
      // Every posting holds at least one token: FTS5's token total bounds the copy's size.
      const totals = readVarints((statementsFor(ftsTable).totals.pluck().get() as Buffer | undefined) ?? Buffer.alloc(0));
      if (((totals[1] ?? 0) + (totals[2] ?? 0)) * 12 + (totals[0] ?? 0) * 40 > cacheBytes) return null;
    }
    if (table === undefined || table.generation !== generation) table = update(key, ftsTable, generation, table);
    tables.set(key, table);
    return table;
  };

  /** Drops the least recently searched copies while over the budget (never the one in use). */
  const evict = (current: number) => {
    let bytes = 0;
    for (const cached of tables.values()) bytes += cached.bytes;
    for (const [oldest, cached] of tables) {
      if (bytes <= cacheBytes || oldest === current) break;
      bytes -= cached.bytes;
      tables.delete(oldest);
    }
  };

  return {
    /**
     * Reads ahead the postings of the chatbot's words, most frequent (dearest to read) first,
     * until `deadline` (a `performance.now()` time) or until the copy holds half the memory
     * budget; `done` when there is nothing left to read, with the words read. Call inside a read transaction, as for a
     * search. A server runs this in short slices while idle after a restart, so that the first
     * questions do not pay each word's first read (docs/retrieval.md, "Warming up").
     */
    warm(key: number, ftsTable: string, generation: number, deadline: number): { done: boolean; words: number } {
      forgetRolledBackTables();
      const table = refresh(key, ftsTable, generation);
      if (table === null) return { done: true, words: 0 };
      table.unread ??= statementsFor(ftsTable).frequent.pluck().all() as string[];
      let words = 0;
      // At least one word a slice, however short the slice.
      while (table.unread.length > 0 && table.bytes <= cacheBytes / 2) {
        const word = table.unread.pop()!;
        if (!table.terms.has(word)) {
          postingsOf(table, ftsTable, word);
          words++;
        }
        if (performance.now() >= deadline) return { done: false, words };
      }
      table.unread = [];
      evict(key);
      return { done: true, words };
    },

    /**
     * The best `k` rows for the query words by FTS5's bm25, ties by rowid (as `ORDER BY bm25, id`),
     * or null when the query must go to FTS5. Call inside the read transaction that read `generation`.
     */
    search(key: number, ftsTable: string, generation: number, words: string[], k: number): ScoredRow[] | null {
      forgetRolledBackTables();
      const terms = termsOf(words);
      if (terms.some((term) => term === null)) return null;
      const table = refresh(key, ftsTable, generation);
      if (table === null) return null;
      if (table.totalRows === 0) return [];
      // Each query term with its IDF and the highest score it can add to a row, in query order.
      const scored: ScoredTerm[] = [];
      let postingCount = 0;
      for (const term of terms) {
        const postings = postingsOf(table, ftsTable, term!);
        let hits = postings.length;
        if (table.deleted > 0) {
          hits = 0;
          for (let index = 0; index < postings.length; index++) if (table.sizes[postings.rows[index]!]! >= 0) hits++;
        }
        if (hits === 0) continue;
        let idf = Math.log((table.totalRows - hits + 0.5) / (hits + 0.5));
        if (idf <= 0) idf = 1e-6;
        scored.push({ postings, idf, upper: (idf * (postings.max * (K1 + 1.0))) / (postings.max + table.minNorm) });
        postingCount += postings.length;
      }
      const found = (scored.length > 1 && postingCount >= PRUNED_FROM_POSTINGS ? bestOfPruned(table, scored, k) : null) ?? everyPosting(table, scored);
      evict(key);
      return topK(found, table.scores, table.ids, k);
    },
  };
}

/** A query term as scored: its postings, FTS5's IDF, and the most it can add to a row's score. */
interface ScoredTerm {
  postings: Postings;
  idf: number;
  upper: number;
}

/** Queries with fewer postings in all are scored posting by posting: pruning would not pay. */
const PRUNED_FROM_POSTINGS = 4_096;
/** Relative slack on the bounds, far above the rounding of sums taken in another order. */
const SLACK = 1e-9;

/** A fresh stamp for a search: rows whose stamp differs hold no score of it. */
function nextStamp(table: PostingTable): number {
  if (++table.stamp === 0xffffffff) {
    table.stamps.fill(0);
    table.stamp = 1;
  }
  return table.stamp;
}

/** Adds a term's score to each live row of its postings, in `table.scores`; returns the new count of touched rows. */
function accumulate(table: PostingTable, term: ScoredTerm, stamp: number, touchedCount: number): number {
  const { stamps, scores, norms, sizes, touched } = table;
  const { rows, freqs, length } = term.postings;
  const { idf } = term;
  const masked = table.deleted > 0; // else no row is deleted: one array fewer to read per posting
  for (let index = 0; index < length; index++) {
    const row = rows[index]!;
    if (masked && sizes[row]! < 0) continue;
    const freq = freqs[index]!;
    const score = idf * ((freq * (K1 + 1.0)) / (freq + norms[row]!));
    if (stamps[row] !== stamp) {
      stamps[row] = stamp;
      scores[row] = 0 + score;
      touched[touchedCount++] = row;
    } else {
      scores[row]! += score;
    }
  }
  return touchedCount;
}

/** Every row any term matches, with FTS5's bm25 in `table.scores`: each term's postings in query order, as FTS5 sums them. */
function everyPosting(table: PostingTable, terms: ScoredTerm[]): Int32Array {
  const stamp = nextStamp(table);
  let touchedCount = 0;
  for (const term of terms) touchedCount = accumulate(table, term, stamp, touchedCount);
  return table.touched.subarray(0, touchedCount);
}

/**
 * The rows that can be among the `k` best, with FTS5's exact bm25 in `table.scores`, reading
 * the common terms' postings only for them (MaxScore): terms are read in the order of the most
 * they can add, until what the unread ones could add together is below the k-th best score so
 * far. A row none of the read terms matched then cannot reach the k best, and a matched row only
 * if its score plus that sum can; those few get every term's frequency by binary search, and
 * their scores are summed again in query order, as the plain path (`everyPosting`) and FTS5 sum
 * them, so that ties rank the same. Null when the common terms are not cheap enough to leave
 * unread.
 */
function bestOfPruned(table: PostingTable, terms: ScoredTerm[], k: number): Int32Array | null {
  const order = terms.map((_, index) => index).sort((a, b) => terms[b]!.upper - terms[a]!.upper);
  // After reading the first `read` terms of `order`: the most the others can add, and their postings.
  const unreadUpper = new Float64Array(order.length + 1);
  const unreadPostings = new Float64Array(order.length + 1);
  for (let index = order.length - 1; index >= 0; index--) {
    const term = terms[order[index]!]!;
    unreadUpper[index] = unreadUpper[index + 1]! + term.upper;
    unreadPostings[index] = unreadPostings[index + 1]! + term.postings.length;
  }
  const stamp = nextStamp(table);
  const { scores, touched } = table;
  let touchedCount = 0;
  for (let read = 0; read < order.length; read++) {
    if (touchedCount >= k) {
      const threshold = kthLargest(scoresOf(scores, touched, touchedCount), k);
      if (unreadUpper[read]! < threshold * (1 - SLACK)) {
        const cut = threshold * (1 - SLACK) - unreadUpper[read]!;
        let count = 0;
        for (let index = 0; index < touchedCount; index++) if (scores[touched[index]!]! >= cut) count++;
        // A candidate costs a binary search per term, about as much as reading ~16 postings each;
        // when that is more than the unread postings, the next term is read instead.
        if (count * terms.length * 16 <= unreadPostings[read]!) {
          const candidates = new Int32Array(count);
          for (let index = 0, next = 0; index < touchedCount; index++) if (scores[touched[index]!]! >= cut) candidates[next++] = touched[index]!;
          return exactScores(table, terms, candidates);
        }
      }
    }
    touchedCount = accumulate(table, terms[order[read]!]!, stamp, touchedCount);
  }
  return null; // every term was read: nothing was saved, and the sums were taken in another order
}

/** FTS5's bm25 of each of `rows` into `table.scores`, the terms' scores summed in query order as FTS5 sums them. */
function exactScores(table: PostingTable, terms: ScoredTerm[], rows: Int32Array): Int32Array {
  const { scores, norms } = table;
  for (const row of rows) {
    let score = 0;
    for (const term of terms) {
      const at = findRow(term.postings, row);
      if (at < 0) continue;
      const freq = term.postings.freqs[at]!;
      score += term.idf * ((freq * (K1 + 1.0)) / (freq + norms[row]!));
    }
    scores[row] = score;
  }
  return rows;
}

const scoresOf = (scores: Float64Array, touched: Int32Array, count: number): Float64Array => {
  const values = new Float64Array(count);
  for (let index = 0; index < count; index++) values[index] = scores[touched[index]!]!;
  return values;
};
