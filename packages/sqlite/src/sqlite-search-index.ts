import { embedderMismatch, invalidRequest } from "@parley/core";
import type { EmbeddingSpace, SearchHit, SearchIndex, StoredChunk } from "@parley/core";
import type { Database } from "better-sqlite3";
import { buildFtsQuery } from "./sqlite-search-index-query.js";
import { createVectorCache } from "./sqlite-search-index-vectors.js";

/** Options of the SQLite search index. */
export interface SqliteSearchIndexOptions {
  /** A handle from `openDatabase` (schema migrated). */
  database: Database;
  /** BM25 weight of the title against the body (default 5, measured on SciFact's training claims). */
  titleWeight?: number;
  /**
   * How many first-pass candidates a vector search re-scores by exact cosine, per result asked for
   * (default 8, at least 100 in all): the recall/speed trade-off of the first pass.
   */
  oversampling?: number;
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

const toBlob = (vector: Float32Array) => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);

function fromBlob(blob: Buffer): Float32Array {
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4);
  return new Float32Array(Uint8Array.from(blob).buffer);
}

/**
 * SearchIndex on SQLite: FTS5 BM25 (`porter unicode61`, title and body columns) and stored float
 * vectors, every write of one call in one transaction. A vector search scores the chatbot's
 * int8 copy on the query's heaviest dimensions, then re-scores the best candidates by exact
 * cosine on the stored floats (docs/retrieval.md).
 */
export function createSqliteSearchIndex(options: SqliteSearchIndexOptions): SearchIndex {
  const { database } = options;
  const titleWeight = options.titleWeight ?? 5;
  const oversampling = options.oversampling ?? 8;

  const statements = {
    chatbot: database.prepare<[string], ChatbotRow>("SELECT key, embedder_id, dimensions, generation, epoch FROM search_chatbots WHERE chatbot_id = ?"),
    insertChatbot: database.prepare("INSERT INTO search_chatbots (chatbot_id, embedder_id, dimensions) VALUES (?, ?, ?)"),
    bump: database.prepare("UPDATE search_chatbots SET generation = generation + 1 WHERE key = ?"),
    bumpEpoch: database.prepare("UPDATE search_chatbots SET epoch = epoch + 1 WHERE key = ?"),
    setSpace: database.prepare("UPDATE search_chatbots SET embedder_id = ?, dimensions = ? WHERE key = ?"),
    deleteDocument: database.prepare("DELETE FROM search_chunks WHERE bot = ? AND source = ?"),
    insertChunk: database.prepare("INSERT INTO search_chunks (bot, source, title, body, embedding) VALUES (?, ?, ?, ?, ?)"),
    chunkBot: database.prepare<[number], { bot: number }>("SELECT bot FROM search_chunks WHERE id = ?"),
    setEmbedding: database.prepare("UPDATE search_chunks SET embedding = ? WHERE id = ?"),
    clearEmbeddings: database.prepare("UPDATE search_chunks SET embedding = NULL WHERE bot = ?"),
    list: database.prepare<[number, number, number], ChunkRow>(
      "SELECT id, source, title, body FROM search_chunks WHERE bot = ? AND id > ? ORDER BY id LIMIT ?",
    ),
    chunk: database.prepare<[number], ChunkRow>("SELECT id, source, title, body FROM search_chunks WHERE id = ?"),
    keyword: database.prepare<[number, string, number], ChunkRow & { score: number }>(
      `SELECT c.id, c.source, c.title, c.body, bm25(search_fts, 0.0, ?, 1.0) AS score
       FROM search_fts JOIN search_chunks AS c ON c.id = search_fts.rowid
       WHERE search_fts MATCH ? ORDER BY score, c.id LIMIT ?`,
    ),
    embedding: database.prepare<[number], { embedding: Buffer | null }>("SELECT embedding FROM search_chunks WHERE id = ?"),
  };

  const vectors = createVectorCache(database);
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

  const replaceDocument = database.transaction((chatbotId: string, space: EmbeddingSpace, document: Parameters<SearchIndex["replaceDocument"]>[2]) => {
    let row = statements.chatbot.get(chatbotId);
    checkSpace(chatbotId, row, space);
    if (row === undefined) {
      statements.insertChatbot.run(chatbotId, space.embedderId, space.dimensions);
      row = statements.chatbot.get(chatbotId)!;
    }
    statements.bump.run(row.key);
    statements.deleteDocument.run(row.key, document.source); // the trigger clears FTS
    for (const chunk of document.chunks) {
      statements.insertChunk.run(row.key, document.source, document.title, chunk.text, toBlob(chunk.embedding));
    }
    return { chunks: document.chunks.length };
  });

  const replaceEmbeddings = database.transaction(
    (chatbotId: string, space: EmbeddingSpace, embeddings: { chunkId: string; embedding: Float32Array }[], reset: boolean) => {
      let row = statements.chatbot.get(chatbotId);
      if (!reset) checkSpace(chatbotId, row, space);
      if (row === undefined) {
        if (embeddings.length > 0 && !reset) throw invalidRequest(`chunkId: ${embeddings[0]!.chunkId} is not a chunk of this chatbot`);
        statements.insertChatbot.run(chatbotId, space.embedderId, space.dimensions);
        row = statements.chatbot.get(chatbotId)!;
      }
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

  return {
    async replaceDocument(chatbotId, space, document) {
      for (const chunk of document.chunks) assertValidEmbedding(chunk.embedding, space);
      return replaceDocument.immediate(chatbotId, space, document);
    },

    async deleteDocument(chatbotId, source) {
      const row = statements.chatbot.get(chatbotId);
      if (row === undefined) return false;
      return database
        .transaction(() => {
          statements.bump.run(row.key);
          return statements.deleteDocument.run(row.key, source).changes > 0;
        })
        .immediate();
    },

    async keywordSearch(chatbotId, text, k) {
      const query = buildFtsQuery(text);
      if (query === null || k <= 0) return [];
      const row = statements.chatbot.get(chatbotId);
      if (row === undefined) return [];
      // The chatbot's own chunks only: its key is a token of the `bot` column, ANDed in.
      const match = `bot : "${row.key}" AND {title body} : (${query})`;
      return statements.keyword.all(titleWeight, match, Math.floor(k)).map((hit) => hitOf(hit, -hit.score));
    },

    async vectorSearch(chatbotId, space, vector, k) {
      const row = statements.chatbot.get(chatbotId);
      if (row === undefined) return [];
      checkSpace(chatbotId, row, space);
      assertValidEmbedding(vector, space);
      if (k <= 0) return [];
      const wanted = Math.max(100, Math.ceil(k * oversampling));
      let queryNorm = 0;
      for (const value of vector) queryNorm += value * value;
      queryNorm = Math.sqrt(queryNorm);
      const scored: { id: number; score: number }[] = [];
      for (const id of vectors.candidates(row.key, row, vector, wanted)) {
        const blob = statements.embedding.get(id)?.embedding;
        if (blob === undefined || blob === null) continue;
        const stored = fromBlob(blob);
        let dot = 0;
        let norm = 0;
        for (let index = 0; index < stored.length; index++) {
          dot += stored[index]! * vector[index]!;
          norm += stored[index]! * stored[index]!;
        }
        scored.push({ id, score: norm === 0 || queryNorm === 0 ? 0 : dot / (Math.sqrt(norm) * queryNorm) });
      }
      scored.sort((a, b) => b.score - a.score || a.id - b.id);
      return scored.slice(0, Math.floor(k)).map(({ id, score }) => hitOf(statements.chunk.get(id)!, score));
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
