import { checkEmbedderSpace, embedderMismatch, invalidRequest, systemClock } from "@parley/core";
import type { Clock, EmbeddingSpace, HybridHits, HybridQuery, SearchHit, SearchIndex, StoredChunk } from "@parley/core";
import type pg from "pg";
import { inTransaction } from "./postgres-transaction.js";
import { createDocumentCatalog, forgetDocuments, recordDocuments } from "./postgres-search-documents.js";
import { queryTerms } from "./postgres-search-terms.js";
import { createHnswIndex, hnswIndexName, hnswVectors, SEARCH_SQL } from "./postgres-search-statements.js";
import { insertDocuments, removeSources, vectorColumn, vectorText } from "./postgres-search-writes.js";
import { createInProcessVectors } from "./postgres-search-vectors.js";
import { fromBytes } from "./postgres-text.js";
import { vectorMode, type VectorMode } from "./postgres-vector-mode.js";

/** Options of the PostgreSQL search index. */
export interface PostgresSearchIndexOptions {
  /** A pool on a database migrated by `openPostgres` (search track). */
  pool: pg.Pool;
  /** BM25 weight of the title against the body (default 3, as the SQLite index). */
  titleWeight?: number;
  /**
   * Chunks from which a chatbot gets an HNSW index of its own (default 20,000). Below it a
   * vector search is exact: scoring every vector of one chatbot is fast, and exact.
   */
  hnswThreshold?: number;
  /** Candidates the HNSW search visits per result asked for (hnsw.ef_search; default 5, at least 100). */
  oversampling?: number;
  /** The time documents are stamped with (default: the system clock). */
  clock?: Clock;
  /** The database's vector mode, as `openPostgres` returned it (default: read from the schema on first use). */
  vectors?: VectorMode;
}

interface ChatbotRow {
  key: number;
  embedder_id: string;
  dimensions: number;
  chunk_count: number;
  hnsw_dimensions: number | null;
  generation: number;
  epoch: number;
}

/** A row of the hybrid statement: the chatbot's row, with one hit of one arm (or none). */
type HybridRow = ChatbotRow & Partial<ChunkRow> & { arm: "keyword" | "vector" | null; score: number | null };

interface ChunkRow {
  id: number;
  source: Buffer;
  title: Buffer;
  body: Buffer;
  /** The chunk's document, where the statement joins it (null when it has none). */
  document_id?: string | null;
  document_title?: Buffer | null;
  document_type?: string | null;
}

const describe = (space: EmbeddingSpace) => `${space.embedderId} (${space.dimensions} dimensions)`;
const spaceOf = (row: ChatbotRow): EmbeddingSpace => ({ embedderId: row.embedder_id, dimensions: row.dimensions });

function assertValidEmbedding(embedding: Float32Array, space: EmbeddingSpace): void {
  if (!(embedding instanceof Float32Array) || embedding.length !== space.dimensions) {
    throw invalidRequest(`embedding: must have ${space.dimensions} dimensions`);
  }
  for (const value of embedding) if (!Number.isFinite(value)) throw invalidRequest("embedding: must hold finite numbers");
}

function checkSpace(chatbotId: string, row: ChatbotRow | undefined, given: EmbeddingSpace): void {
  if (row !== undefined && (row.embedder_id !== given.embedderId || row.dimensions !== given.dimensions)) {
    throw embedderMismatch(chatbotId, describe(spaceOf(row)), describe(given));
  }
}

const hitOf = (row: ChunkRow, score: number): SearchHit => ({
  chunkId: String(row.id),
  source: fromBytes(row.source),
  title: fromBytes(row.title),
  text: fromBytes(row.body),
  score,
  ...(row.document_id ? { document: { id: row.document_id, title: fromBytes(row.document_title!), type: row.document_type! } } : {}),
});

const chunkIdOf = (chunkId: string) => (/^[1-9]\d{0,15}$/.test(chunkId) ? Number(chunkId) : undefined);

/**
 * SearchIndex on PostgreSQL (docs/design.md §13, "Any PostgreSQL"): BM25 computed in SQL from
 * per-chatbot statistics kept in the same transactions as the chunks. Vectors with pgvector
 * (exact below `hnswThreshold` chunks, a partial HNSW index of the chatbot's own rows above it)
 * or, on a database without it, in the server process (postgres-search-vectors.ts). Every write
 * is one transaction holding the chatbot's row lock.
 */
export function createPostgresSearchIndex(options: PostgresSearchIndexOptions): SearchIndex {
  const { pool } = options;
  const titleWeight = options.titleWeight ?? 3;
  const hnswThreshold = options.hnswThreshold ?? 20_000;
  const oversampling = options.oversampling ?? 5;
  const clock = options.clock ?? systemClock;
  const catalog = createDocumentCatalog(pool);
  const inProcess = createInProcessVectors(pool);
  let mode: Promise<VectorMode> | undefined = options.vectors === undefined ? undefined : Promise.resolve(options.vectors);
  /** The database's vector mode, read once (a move to pgvector needs the servers restarted). */
  const vectors = () =>
    (mode ??= vectorMode(pool).then((found) => {
      if (found === undefined) throw new Error("The search schema is missing: open the database with openPostgres first.");
      return found;
    })).catch((error: unknown) => {
      mode = undefined; // not migrated yet, or the database was down: read again next time
      throw error;
    });

  const chatbot = async (chatbotId: string) => (await pool.query<ChatbotRow>(SEARCH_SQL.chatbot, [chatbotId])).rows[0];
  /** The chatbot's row, locked for this transaction; created with `space` when `create` and new. */
  const lockChatbot = async (client: pg.PoolClient, chatbotId: string, space?: EmbeddingSpace) => {
    if (space !== undefined) await client.query(SEARCH_SQL.insertChatbot, [chatbotId, space.embedderId, space.dimensions]);
    return (await client.query<ChatbotRow>(SEARCH_SQL.lockChatbot, [chatbotId])).rows[0];
  };

  /** After a write commits: gives a chatbot that has grown past the threshold its HNSW index. */
  const indexIfLarge = async (chatbotId: string) => {
    if ((await vectors()) !== "pgvector") return;
    const row = await chatbot(chatbotId);
    if (row === undefined || row.chunk_count < hnswThreshold || row.hnsw_dimensions === row.dimensions) return;
    // CONCURRENTLY: the chatbot's (and every other's) reads and writes go on while it builds.
    await pool.query(createHnswIndex(row.key, row.dimensions));
    await pool.query("UPDATE search_chatbots SET hnsw_dimensions = $2 WHERE key = $1 AND dimensions = $2", [row.key, row.dimensions]);
  };

  /** The chatbot rows the last in-process searches saw, by chatbot id: what the held copies are. */
  const lastSeen = new Map<string, ChatbotRow>();
  /**
   * A vector search without pgvector, in one round trip on the common path: the copy held for
   * the chatbot is scored, then the best chunks are read together with the chatbot's row as it is
   * now. When that row shows a newer version than the copy scored, the copy is brought up to it
   * and scored again (and the chunks read again), so the copy is never older than the row this
   * search read. A chunk deleted meanwhile is left out.
   */
  const inProcessSearch = async (chatbotId: string, space: EmbeddingSpace, vector: Float32Array, k: number): Promise<SearchHit[]> => {
    let state = lastSeen.get(chatbotId) ?? (await chatbot(chatbotId));
    if (state === undefined) return [];
    for (let attempt = 0; ; attempt += 1) {
      checkSpace(chatbotId, state, space);
      assertValidEmbedding(vector, space);
      if (k <= 0) return [];
      const limit = Math.floor(k);
      const nearest = await inProcess.nearest(state.key, state, vector, limit, Math.max(100, Math.ceil(limit * oversampling)));
      const { rows } = await pool.query<ChatbotRow & Partial<ChunkRow>>(SEARCH_SQL.chunksById, [chatbotId, nearest.map(({ id }) => id)]);
      const current = rows[0];
      if (current === undefined) return [];
      const fresh = current.key === state.key && current.generation === state.generation && current.epoch === state.epoch && current.dimensions === state.dimensions;
      if (lastSeen.size > 10_000) lastSeen.clear();
      lastSeen.set(chatbotId, current);
      if (fresh || attempt > 0) {
        checkSpace(chatbotId, current, space);
        const byId = new Map(rows.filter((found) => found.id !== null && found.id !== undefined).map((found) => [found.id!, found as ChunkRow]));
        return nearest.flatMap(({ id, score }) => (byId.has(id) ? [hitOf(byId.get(id)!, score)] : []));
      }
      state = current;
    }
  };

  /**
   * A chat's retrieval in one round trip on the common path (docs/scaling.md, "Round trips of a
   * chat"): the space is checked against the chatbot's row as the last search saw it (read when
   * none did, or when it seems another: a reindex may have made it the embedder's), the query
   * embedded, then one statement reads the row as it is now with both arms. A row of another space
   * now is refused as a mismatch; in process, a row of a newer version refreshes the copy and the
   * statement runs once more, as `inProcessSearch` does. A chatbot HNSW-indexed keeps its two
   * statements: its search needs a setting of its own, in a transaction.
   */
  const hybridSearch = async (index: SearchIndex, chatbotId: string, query: HybridQuery): Promise<HybridHits | null> => {
    const { embedder } = query;
    let known = lastSeen.get(chatbotId);
    if (known === undefined || known.embedder_id !== embedder.id || known.dimensions !== embedder.dimensions) known = await chatbot(chatbotId);
    if (known === undefined) return null;
    let state: ChatbotRow = known;
    checkEmbedderSpace(chatbotId, spaceOf(state), embedder);
    const space = spaceOf(state);
    const mode = await vectors();
    const [vector] = await embedder.embed([query.text], "query");
    assertValidEmbedding(vector!, space);
    if (mode === "pgvector" && state.hnsw_dimensions === state.dimensions) {
      const [keyword, nearest] = await Promise.all([index.keywordSearch(chatbotId, query.text, query.keywordK), index.vectorSearch(chatbotId, space, vector!, query.vectorK)]);
      return { keyword, vector: nearest };
    }
    const terms = queryTerms(query.text);
    const keywordK = terms.length === 0 ? 0 : Math.max(0, Math.floor(query.keywordK));
    const vectorK = Math.max(0, Math.floor(query.vectorK));
    for (let attempt = 0; ; attempt += 1) {
      const nearest: { id: number; score: number }[] = mode === "in-process" && vectorK > 0 ? await inProcess.nearest(state.key, state, vector!, vectorK, Math.max(100, Math.ceil(vectorK * oversampling))) : [];
      const parameters: unknown[] =
        mode === "pgvector" ? [chatbotId, terms, keywordK, vectorText(vector!), space.embedderId, space.dimensions, vectorK] : [chatbotId, terms, keywordK, nearest.map(({ id }) => id)];
      const { rows } = await pool.query<HybridRow>(SEARCH_SQL.hybrid(mode), parameters);
      const current: HybridRow | undefined = rows[0];
      if (current === undefined) return null;
      if (lastSeen.size > 10_000) lastSeen.clear();
      lastSeen.set(chatbotId, current);
      checkEmbedderSpace(chatbotId, spaceOf(current), embedder);
      const fresh = current.key === state.key && current.generation === state.generation && current.epoch === state.epoch;
      if (mode === "in-process" && !fresh && attempt === 0) {
        state = current;
        continue;
      }
      const found = (arm: "keyword" | "vector") => rows.filter((row): row is HybridRow & ChunkRow => row.arm === arm && row.id !== null && row.id !== undefined);
      const keyword = found("keyword").map((row) => hitOf(row, row.score!));
      if (mode === "pgvector") return { keyword, vector: found("vector").map((row) => hitOf(row, Number.isNaN(row.score) ? 0 : 1 - row.score!)) };
      const byId = new Map<number, ChunkRow>(found("vector").map((row) => [row.id, row]));
      return { keyword, vector: nearest.flatMap(({ id, score }) => (byId.has(id) ? [hitOf(byId.get(id)!, score)] : [])) };
    }
  };

  const replaceDocuments: SearchIndex["replaceDocuments"] = async (chatbotId, space, documents) => {
    // Checked before the transaction, so a bad vector anywhere writes nothing.
    for (const document of documents) for (const chunk of document.chunks) assertValidEmbedding(chunk.embedding, space);
    // A source given twice ends as its last version: the earlier ones would be replaced anyway.
    const last = new Map(documents.map((document) => [document.source, document]));
    const mode = await vectors();
    const result = await inTransaction(pool, async (client) => {
      checkSpace(chatbotId, (await client.query<ChatbotRow>(SEARCH_SQL.lockChatbot, [chatbotId])).rows[0], space);
      const row = (await lockChatbot(client, chatbotId, space))!;
      await removeSources(client, row.key, [...last.keys()]);
      await insertDocuments(client, row.key, [...last.values()], titleWeight, mode);
      await recordDocuments(client, row.key, documents, () => clock.now());
      return { chunks: documents.reduce((sum, document) => sum + document.chunks.length, 0) };
    });
    await indexIfLarge(chatbotId);
    return result;
  };

  return {
    replaceDocument: (chatbotId, space, document) => replaceDocuments(chatbotId, space, [document]),
    replaceDocuments,

    async deleteDocument(chatbotId, source) {
      return inTransaction(pool, async (client) => {
        const row = await lockChatbot(client, chatbotId);
        if (row === undefined) return false;
        await forgetDocuments(client, row.key, [source]);
        return (await removeSources(client, row.key, [source])) > 0;
      });
    },

    listDocuments: (chatbotId, listOptions) => catalog.list(chatbotId, listOptions),
    getDocument: (chatbotId, key) => catalog.get(chatbotId, key),
    documentStats: (chatbotId) => catalog.stats(chatbotId),

    async keywordSearch(chatbotId, text, k) {
      const terms = queryTerms(text);
      if (terms.length === 0 || k <= 0) return [];
      const { rows } = await pool.query<ChunkRow & { score: number }>(SEARCH_SQL.keyword, [chatbotId, terms, Math.floor(k)]);
      return rows.map((found) => hitOf(found, found.score));
    },

    async vectorSearch(chatbotId, space, vector, k) {
      if ((await vectors()) === "in-process") return inProcessSearch(chatbotId, space, vector, k);
      const row = await chatbot(chatbotId);
      if (row === undefined) return [];
      checkSpace(chatbotId, row, space);
      assertValidEmbedding(vector, space);
      if (k <= 0) return [];
      const limit = Math.floor(k);
      const rows =
        row.hnsw_dimensions === row.dimensions
          ? await inTransaction(pool, async (client) => {
              await client.query(`SET LOCAL hnsw.ef_search = ${Math.min(1_000, Math.max(100, limit * oversampling))}`);
              return (await client.query<ChunkRow & { distance: number }>(hnswVectors(row.key, row.dimensions), [vectorText(vector), limit])).rows;
            })
          : (await pool.query<ChunkRow & { distance: number }>(SEARCH_SQL.exactVectors, [row.key, vectorText(vector), limit])).rows;
      // A zero vector has no direction: pgvector gives NaN, scored 0 as SQLite scores it.
      return rows.map((found) => hitOf(found, Number.isNaN(found.distance) ? 0 : 1 - found.distance));
    },

    hybridSearch(chatbotId, query) {
      return hybridSearch(this, chatbotId, query);
    },

    async embeddingSpace(chatbotId) {
      const row = await chatbot(chatbotId);
      return row === undefined ? null : spaceOf(row);
    },

    async listChunks(chatbotId, { afterChunkId, limit }): Promise<StoredChunk[]> {
      const after = afterChunkId === undefined ? 0 : chunkIdOf(afterChunkId);
      if (after === undefined) throw invalidRequest("afterChunkId: must be a chunk id");
      const row = await chatbot(chatbotId);
      if (row === undefined || limit <= 0) return [];
      const { rows } = await pool.query<ChunkRow>(SEARCH_SQL.list, [row.key, after, Math.floor(limit)]);
      return rows.map(({ id, source, title, body }) => ({ chunkId: String(id), source: fromBytes(source), title: fromBytes(title), text: fromBytes(body) }));
    },

    async replaceEmbeddings(chatbotId, space, embeddings, { reset }) {
      for (const { embedding } of embeddings) assertValidEmbedding(embedding, space);
      const mode = await vectors();
      await inTransaction(pool, async (client) => {
        const existing = await lockChatbot(client, chatbotId);
        if (!reset) checkSpace(chatbotId, existing, space);
        const refuse = (chunkId: string) => invalidRequest(`chunkId: ${chunkId} is not a chunk of this chatbot`);
        if (existing === undefined && embeddings.length > 0) throw refuse(embeddings[0]!.chunkId);
        const row = (await lockChatbot(client, chatbotId, space))!;
        const ids = embeddings.map(({ chunkId }) => chunkIdOf(chunkId) ?? -1);
        const { rows } = await client.query<{ id: number }>(SEARCH_SQL.chunksOfChatbot, [row.key, ids.filter((id) => id > 0)]);
        const mine = new Set(rows.map((found) => found.id));
        const stranger = embeddings.find((_, index) => !mine.has(ids[index]!));
        if (stranger !== undefined) throw refuse(stranger.chunkId);
        if (reset) {
          // The old index holds the old space's vectors: it goes, and comes back once rebuilt.
          await client.query(`DROP INDEX IF EXISTS ${hnswIndexName(row.key)}`);
          await client.query("UPDATE search_chatbots SET hnsw_dimensions = NULL WHERE key = $1", [row.key]);
          await client.query(SEARCH_SQL.setSpace, [row.key, space.embedderId, space.dimensions]);
          await client.query(SEARCH_SQL.clearEmbeddings, [row.key]);
        }
        await client.query(SEARCH_SQL.setEmbeddings(mode), [row.key, ids, embeddings.map(({ embedding }) => vectorColumn(mode, embedding))]);
        await client.query(SEARCH_SQL.bumpEpoch, [row.key]);
      });
      await indexIfLarge(chatbotId);
    },
  };
}

