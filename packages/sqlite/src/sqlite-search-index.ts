import { embedderMismatch, hybridSearchInParts, invalidRequest, systemClock } from "@parley/core";
import type { Clock, DocumentToIndex, EmbeddingSpace, SearchHit, SearchIndex, StoredChunk } from "@parley/core";
import type { Database } from "better-sqlite3";
import { createKeywordIndex } from "./sqlite-search-index-keyword.js";
import { createVectorCache } from "./sqlite-search-index-vectors.js";
import { createDocumentCatalog } from "./sqlite-search-documents.js";

/** Options of the SQLite search index. */
export interface SqliteSearchIndexOptions {
  /** A handle from `openDatabase` (schema migrated). */
  database: Database;
  /** BM25 weight of the title against the body (default 3, the best of 2–8 on SciFact's training claims). */
  titleWeight?: number;
  /**
   * How many first-pass candidates a vector search re-scores by exact cosine, per result asked for
   * (default 5, at least 100 in all): the recall/speed trade-off of the first pass.
   */
  oversampling?: number;
  /**
   * Posting rows a keyword query may cost before its commonest words are left out (default
   * Infinity: every word kept). A bound such as 20,000 halves BM25's latency in a chatbot of
   * 100,000 chunks but costs ranking quality (docs/retrieval.md), so it is opt-in.
   */
  keywordPostingBudget?: number;
  /**
   * Score keyword queries in process over postings read from FTS5 (default true): the same
   * ranking as FTS5's bm25, several times faster on large chatbots (docs/retrieval.md). False
   * always queries FTS5.
   */
  keywordInProcess?: boolean;
  /** The time documents are stamped with (default: the system clock). */
  clock?: Clock;
}

/** The SQLite SearchIndex, with what only an in-process index needs. */
export interface SqliteSearchIndex extends SearchIndex {
  /**
   * Reads every chatbot's keyword postings ahead of queries, most frequent words first, in
   * slices of `sliceMs` (default 10; at least one word each) between which other work runs;
   * resolves when done or when `signal` aborts, with the chatbots finished and the words read. A server calls it once after opening
   * the database, so the first questions after a restart do not pay each word's first read.
   */
  warmUp(options?: { signal?: AbortSignal; sliceMs?: number }): Promise<{ chatbots: number; words: number }>;
}

interface ChatbotRow {
  key: number;
  embedder_id: string;
  dimensions: number;
  generation: number;
  epoch: number;
}

interface ChunkRow {
  id: number;
  source: string;
  title: string;
  body: string;
}

const describe = (space: EmbeddingSpace) => `${space.embedderId} (${space.dimensions} dimensions)`;

function assertValidEmbedding(embedding: Float32Array, space: EmbeddingSpace): void {
  if (!(embedding instanceof Float32Array) || embedding.length !== space.dimensions) {
    throw invalidRequest(`embedding: must have ${space.dimensions} dimensions`);
  }
  for (const value of embedding) if (!Number.isFinite(value)) throw invalidRequest("embedding: must hold finite numbers");
}

/**
 * Candidates re-scored exactly for a sparse query, per hit wanted and at least: the int8 second
 * pass keeps 1.5·k, which left the exact top 20 unchanged for 1,000 of 1,000 questions on the
 * benchmark's 15,000 chunks (1.25·k: 998), and `npm run bench` reports the recall.
 */
const RESCORED_PER_HIT = 1.5;
const RESCORED_AT_LEAST = 30;

const toBlob = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

/**
 * SearchIndex on SQLite: FTS5 BM25 (`porter unicode61`, title and body columns) and stored float
 * vectors, every write of one call in one transaction. A vector search scores the chatbot's
 * int8 copy on the query's heaviest dimensions, then re-scores the best candidates by exact
 * cosine on the stored floats, computed by sqlite-vec's `vec_distance_cosine` (docs/retrieval.md).
 */
export function createSqliteSearchIndex(options: SqliteSearchIndexOptions): SqliteSearchIndex {
  const { database } = options;
  const titleWeight = options.titleWeight ?? 3;
  const oversampling = options.oversampling ?? 5;
  const postingBudget = options.keywordPostingBudget ?? Number.POSITIVE_INFINITY;

  const statements = {
    chatbot: database.prepare<[string], ChatbotRow>("SELECT key, embedder_id, dimensions, generation, epoch FROM search_chatbots WHERE chatbot_id = ?"),
    chatbotIds: database.prepare<[], { chatbot_id: string }>("SELECT chatbot_id FROM search_chatbots ORDER BY key"),
    insertChatbot: database.prepare("INSERT INTO search_chatbots (chatbot_id, embedder_id, dimensions) VALUES (?, ?, ?)"),
    bump: database.prepare("UPDATE search_chatbots SET generation = generation + 1 WHERE key = ?"),
    bumpEpoch: database.prepare("UPDATE search_chatbots SET epoch = epoch + 1 WHERE key = ?"),
    setSpace: database.prepare("UPDATE search_chatbots SET embedder_id = ?, dimensions = ? WHERE key = ?"),
    documentChunks: database.prepare<[number, string], { id: number }>("SELECT id FROM search_chunks WHERE bot = ? AND source = ?"),
    deleteChunk: database.prepare("DELETE FROM search_chunks WHERE id = ?"),
    insertChunk: database.prepare("INSERT INTO search_chunks (bot, source, title, body, embedding) VALUES (?, ?, ?, ?, ?)"),
    chunkBot: database.prepare<[number], { bot: number }>("SELECT bot FROM search_chunks WHERE id = ?"),
    setEmbedding: database.prepare("UPDATE search_chunks SET embedding = ? WHERE id = ?"),
    clearEmbeddings: database.prepare("UPDATE search_chunks SET embedding = NULL WHERE bot = ?"),
    list: database.prepare<[number, number, number], ChunkRow>(
      "SELECT id, source, title, body FROM search_chunks WHERE bot = ? AND id > ? ORDER BY id LIMIT CAST(? AS INTEGER)",
    ),
    // sqlite-vec's cosine over the stored floats (null for a zero vector), with the rest of the
    // row, read on the way to the floats.
    rescore: database.prepare<[Buffer, string, number], ChunkRow & { distance: number | null }>(
      "SELECT id, source, title, body, vec_distance_cosine(embedding, ?) AS distance FROM search_chunks WHERE id IN (SELECT value FROM json_each(?)) AND length(embedding) = ?",
    ),
  };

  const vectors = createVectorCache(database);
  const catalog = createDocumentCatalog(database);
  const clock = options.clock ?? systemClock;
  const keyword = createKeywordIndex(database, { titleWeight, postingBudget, inProcess: options.keywordInProcess ?? true });
  /** The chatbot's row, created (with its FTS5 table) in the caller's transaction if new. */
  const ensureChatbot = (chatbotId: string, space: EmbeddingSpace): ChatbotRow => {
    const existing = statements.chatbot.get(chatbotId);
    if (existing !== undefined) return existing;
    const { lastInsertRowid } = statements.insertChatbot.run(chatbotId, space.embedderId, space.dimensions);
    keyword.create(Number(lastInsertRowid));
    return statements.chatbot.get(chatbotId)!;
  };
  /** Removes a document's chunks from FTS5 and the chunk table; the number removed. */
  const removeDocument = (key: number, source: string): number => {
    const ids = statements.documentChunks.all(key, source);
    for (const { id } of ids) {
      keyword.remove(key, id);
      statements.deleteChunk.run(id);
    }
    return ids.length;
  };
  const spaceOf = (row: ChatbotRow): EmbeddingSpace => ({ embedderId: row.embedder_id, dimensions: row.dimensions });
  const checkSpace = (chatbotId: string, row: ChatbotRow | undefined, given: EmbeddingSpace) => {
    if (row !== undefined && (row.embedder_id !== given.embedderId || row.dimensions !== given.dimensions)) {
      throw embedderMismatch(chatbotId, describe(spaceOf(row)), describe(given));
    }
  };
  const hitOf = (row: ChunkRow, score: number): SearchHit => ({
    chunkId: String(row.id),
    source: row.source,
    title: row.title,
    text: row.body,
    score,
  });

  // Every document in one transaction: FTS5 writes a segment per commit, so one commit for many
  // documents is what makes bulk ingestion fast, and it is all or nothing.
  const replaceDocuments = database.transaction((chatbotId: string, space: EmbeddingSpace, documents: DocumentToIndex[]) => {
    checkSpace(chatbotId, statements.chatbot.get(chatbotId), space);
    const row = ensureChatbot(chatbotId, space);
    statements.bump.run(row.key);
    let count = 0;
    // In order, so a source given twice ends as its last version.
    for (const document of documents) {
      removeDocument(row.key, document.source);
      for (const chunk of document.chunks) {
        const { lastInsertRowid } = statements.insertChunk.run(row.key, document.source, document.title, chunk.text, toBlob(chunk.embedding));
        keyword.add(row.key, Number(lastInsertRowid), document.title, chunk.text);
      }
      catalog.record(row.key, document, clock.now());
      count += document.chunks.length;
    }
    return { chunks: count };
  });

  const writeDocuments = (chatbotId: string, space: EmbeddingSpace, documents: DocumentToIndex[]) => {
    // Checked before the transaction, so a bad vector anywhere writes nothing.
    for (const document of documents) for (const chunk of document.chunks) assertValidEmbedding(chunk.embedding, space);
    return replaceDocuments.immediate(chatbotId, space, documents);
  };

  const replaceEmbeddings = database.transaction(
    (chatbotId: string, space: EmbeddingSpace, embeddings: { chunkId: string; embedding: Float32Array }[], reset: boolean) => {
      const existing = statements.chatbot.get(chatbotId);
      if (!reset) checkSpace(chatbotId, existing, space);
      if (existing === undefined && embeddings.length > 0) throw invalidRequest(`chunkId: ${embeddings[0]!.chunkId} is not a chunk of this chatbot`);
      const row = ensureChatbot(chatbotId, space);
      const ids = embeddings.map(({ chunkId }) => {
        const id = Number(chunkId);
        if (!Number.isSafeInteger(id) || statements.chunkBot.get(id)?.bot !== row.key) {
          throw invalidRequest(`chunkId: ${chunkId} is not a chunk of this chatbot`);
        }
        return id;
      });
      statements.bump.run(row.key);
      statements.bumpEpoch.run(row.key);
      if (reset) {
        statements.setSpace.run(space.embedderId, space.dimensions, row.key);
        statements.clearEmbeddings.run(row.key);
      }
      embeddings.forEach(({ embedding }, index) => statements.setEmbedding.run(toBlob(embedding), ids[index]!));
    },
  );

  // One read transaction: the generation, the candidates and their rows come from one snapshot,
  // even while another process writes the same file.
  const vectorSearch = database.transaction((chatbotId: string, space: EmbeddingSpace, vector: Float32Array, k: number): SearchHit[] => {
    const row = statements.chatbot.get(chatbotId);
    if (row === undefined) return [];
    checkSpace(chatbotId, row, space);
    assertValidEmbedding(vector, space);
    if (k <= 0) return [];
    const wanted = Math.max(100, Math.ceil(k * oversampling));
    // A sparse query's candidates are narrowed in memory first: each one re-scored here costs a
    // read of its floats (two pages), about 4.5 µs.
    const candidates = vectors.candidates(row.key, row, vector, wanted, Math.max(RESCORED_AT_LEAST, Math.ceil(k * RESCORED_PER_HIT)));
    const scored = statements.rescore
      .all(toBlob(vector), JSON.stringify(candidates), vector.byteLength)
      .map((chunk) => ({ chunk, score: chunk.distance === null ? 0 : 1 - chunk.distance }));
    scored.sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id);
    return scored.slice(0, Math.floor(k)).map(({ chunk, score }) => hitOf(chunk, score));
  });

  // One read transaction, as for vectors: the generation the in-process postings follow and the
  // rows they are scored against come from one snapshot.
  const keywordSearch = database.transaction((chatbotId: string, text: string, k: number): SearchHit[] => {
    const row = statements.chatbot.get(chatbotId);
    if (row === undefined || k <= 0) return [];
    return keyword.search(row.key, row.generation, text, Math.floor(k)).map((hit) => hitOf(hit, -hit.score));
  });

  // One slice of a warm-up in one read transaction, as a search reads.
  const warmSlice = database.transaction((chatbotId: string, deadline: number) => {
    const row = statements.chatbot.get(chatbotId);
    return row === undefined ? { done: true, words: 0 } : keyword.warm(row.key, row.generation, deadline);
  });

  return {
    async warmUp({ signal, sliceMs = 10 } = {}) {
      let chatbots = 0;
      let words = 0;
      for (const { chatbot_id: chatbotId } of statements.chatbotIds.all()) {
        for (;;) {
          // Yield first: requests arriving meanwhile go before the next slice.
          await new Promise((resolve) => setImmediate(resolve));
          if (signal?.aborted || !database.open) return { chatbots, words };
          const slice = warmSlice(chatbotId, performance.now() + sliceMs);
          words += slice.words;
          if (slice.done) break;
        }
        chatbots++;
      }
      return { chatbots, words };
    },

    async replaceDocument(chatbotId, space, document) {
      return writeDocuments(chatbotId, space, [document]);
    },

    async replaceDocuments(chatbotId, space, documents) {
      return writeDocuments(chatbotId, space, documents);
    },

    async deleteDocument(chatbotId, source) {
      const row = statements.chatbot.get(chatbotId);
      if (row === undefined) return false;
      return database
        .transaction(() => {
          statements.bump.run(row.key);
          catalog.remove(row.key, source);
          return removeDocument(row.key, source) > 0;
        })
        .immediate();
    },

    async listDocuments(chatbotId, options) {
      return catalog.list(chatbotId, options);
    },

    async getDocument(chatbotId, key) {
      return catalog.get(chatbotId, key);
    },

    async documentStats(chatbotId) {
      return catalog.stats(chatbotId);
    },

    async keywordSearch(chatbotId, text, k) {
      return keywordSearch(chatbotId, text, k);
    },

    async vectorSearch(chatbotId, space, vector, k) {
      return vectorSearch(chatbotId, space, vector, k);
    },

    hybridSearch(chatbotId, query) {
      return hybridSearchInParts(this, chatbotId, query);
    },

    async embeddingSpace(chatbotId) {
      const row = statements.chatbot.get(chatbotId);
      return row === undefined ? null : spaceOf(row);
    },

    async listChunks(chatbotId, { afterChunkId, limit }): Promise<StoredChunk[]> {
      const after = afterChunkId === undefined ? 0 : Number(afterChunkId);
      if (!Number.isSafeInteger(after)) throw invalidRequest("afterChunkId: must be a chunk id");
      const row = statements.chatbot.get(chatbotId);
      if (row === undefined || limit <= 0) return [];
      return statements.list.all(row.key, after, Math.floor(limit)).map(({ id, source, title, body }) => ({
        chunkId: String(id),
        source,
        title,
        text: body,
      }));
    },

    async replaceEmbeddings(chatbotId, space, embeddings, { reset }) {
      for (const { embedding } of embeddings) assertValidEmbedding(embedding, space);
      replaceEmbeddings.immediate(chatbotId, space, embeddings, reset);
    },
  };
}
