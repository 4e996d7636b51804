import { queryWords } from "@parley/core";
import type { Database, Statement } from "better-sqlite3";
import { createPostingCache } from "./sqlite-search-index-bm25.js";
import { buildFtsQuery, pruneCommonWords } from "./sqlite-search-index-query.js";

/** A chunk row as the keyword search returns it, with FTS5's bm25 (lower is better). */
export interface KeywordRow {
  id: number;
  source: string;
  title: string;
  body: string;
  score: number;
}

interface ChatbotStatements {
  insert: Statement<[number, string, string]>;
  remove: Statement<[number]>;
  search: Statement<[string, number]>;
  chunk: Statement<[number]>;
  termFrequency?: Statement<[string]>;
}

/** Queries of this many words or fewer are never pruned (no vocabulary lookups). */
const SHORT_QUERY_WORDS = 3;

/** The FTS5 table of one chatbot; `key` is the integer key from search_chatbots, never user text. */
export const ftsTableOf = (key: number) => `search_fts_${Math.trunc(key)}`;

/**
 * FTS5 merges a level's segments once it holds this many (FTS5's default is 4). Merging later
 * makes inserts cheaper for about twice the segments, which the in-process scorer reads no
 * slower (`npm run bench:fts5-automerge`; docs/benchmarks.md, "FTS5 automerge").
 */
export const FTS_AUTOMERGE = 8;

/** Sets a chatbot's FTS5 table to FTS_AUTOMERGE (stored in the table's own config). */
export function setAutomerge(database: Database, key: number): void {
  const table = ftsTableOf(key);
  // A literal: bound from JavaScript, the number would arrive as a REAL, which FTS5 refuses.
  database.exec(`INSERT INTO ${table} (${table}, rank) VALUES ('automerge', ${FTS_AUTOMERGE})`);
}

/**
 * Each chatbot's keyword index: a contentless FTS5 table (`porter unicode61`, title and body
 * columns, `contentless_delete`) of its own, so BM25's N, average length and document
 * frequencies are the chatbot's, not every tenant's (docs/retrieval.md measures the difference).
 * The text itself stays in search_chunks; rows are written by the caller's transaction.
 */
export function createKeywordIndex(database: Database, options: { titleWeight: number; postingBudget: number; inProcess?: boolean }) {
  const cache = new Map<number, ChatbotStatements>();
  const postings = options.inProcess === false ? undefined : createPostingCache(database, { titleWeight: options.titleWeight });

  const statementsFor = (key: number): ChatbotStatements => {
    let statements = cache.get(key);
    if (statements !== undefined) return statements;
    const table = ftsTableOf(key);
    statements = {
      insert: database.prepare(`INSERT INTO ${table} (rowid, title, body) VALUES (?, ?, ?)`),
      remove: database.prepare(`DELETE FROM ${table} WHERE rowid = ?`),
      search: database.prepare(
        `SELECT c.id, c.source, c.title, c.body, bm25(${table}, ${options.titleWeight}, 1.0) AS score
         FROM ${table} JOIN search_chunks AS c ON c.id = ${table}.rowid
         WHERE ${table} MATCH ? ORDER BY score, c.id LIMIT CAST(? AS INTEGER)`,
      ),
      chunk: database.prepare("SELECT id, source, title, body FROM search_chunks WHERE id = ?"),
    };
    cache.set(key, statements);
    return statements;
  };

  return {
    /** Creates the chatbot's FTS5 table; call inside the transaction that creates the chatbot. */
    create(key: number): void {
      database.exec(
        `CREATE VIRTUAL TABLE IF NOT EXISTS ${ftsTableOf(key)} USING fts5 (title, body, content = '', contentless_delete = 1, tokenize = 'porter unicode61')`,
      );
      setAutomerge(database, key);
    },
    add(key: number, id: number, title: string, body: string): void {
      statementsFor(key).insert.run(id, title, body);
    },
    remove(key: number, id: number): void {
      statementsFor(key).remove.run(id);
    },
    /** Reads the chatbot's postings ahead of queries until `deadline` (see the posting cache's `warm`). */
    warm(key: number, generation: number, deadline: number): { done: boolean; words: number } {
      return postings?.warm(key, ftsTableOf(key), generation, deadline) ?? { done: true, words: 0 };
    },

    /**
     * The best `k` rows for arbitrary user text; text without words finds nothing. Scored in
     * process when it can be (the same ranking as FTS5's), else by FTS5. Call inside a read
     * transaction that also read the chatbot's `generation`.
     */
    search(key: number, generation: number, text: string, k: number): KeywordRow[] {
      let terms = queryWords(text);
      if (terms.length > SHORT_QUERY_WORDS && Number.isFinite(options.postingBudget)) {
        const statements = statementsFor(key);
        if (statements.termFrequency === undefined) {
          database.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.${ftsTableOf(key)}_terms USING fts5vocab (main, ${ftsTableOf(key)}, row)`);
          statements.termFrequency = database.prepare(`SELECT doc FROM temp.${ftsTableOf(key)}_terms WHERE term = ?`);
        }
        const lookup = statements.termFrequency;
        terms = pruneCommonWords(terms, (term) => (lookup.get(term) as { doc: number } | undefined)?.doc ?? null, options.postingBudget);
      }
      const query = buildFtsQuery(terms);
      if (query === null) return [];
      const statements = statementsFor(key);
      const scored = postings?.search(key, ftsTableOf(key), generation, terms, k);
      if (scored !== null && scored !== undefined) {
        // Fields written out: a spread followed by another property takes V8's slow path (fusion.ts).
        return scored.map(({ id, score }) => {
          const row = statements.chunk.get(id) as Omit<KeywordRow, "score">;
          return { id: row.id, source: row.source, title: row.title, body: row.body, score: -score };
        });
      }
      return statements.search.all(query, k) as KeywordRow[];
    },
  };
}

