// The SQL of the PostgreSQL search index, gathered in one place. Every value is a parameter;
// the only text built into SQL is a chatbot's integer key and its vector dimensions (numbers
// from the database, never from a caller), for the partial HNSW index.

import { preparedStatement, preparedStatements } from "./postgres-prepared.js";
import type { VectorMode } from "./postgres-vector-mode.js";

// BM25 constants, as FTS5's bm25() and the SQLite adapter use them.
const K1 = 1.2;
const B = 0.75;

// BM25 over the chatbot's own statistics: IDF floored as FTS5 floors it, then the top $3 chunks
// for the terms $2. The chatbot is found by its id ($1) in the same statement, so a search is one
// round trip. The CTEs `bot` (its row) and `scored` (chunk_id, score), for the statements below.
const BM25_TOP = `bot AS (SELECT key, embedder_id, dimensions, chunk_count, hnsw_dimensions, generation, epoch,
        chunk_count::float8 AS n, total_length::float8 / greatest(chunk_count, 1) AS average FROM search_chatbots WHERE chatbot_id = $1),
      query AS (SELECT unnest($2::text[]) AS term),
      weights AS (
        SELECT q.term, greatest(ln((s.n - t.document_frequency + 0.5) / (t.document_frequency + 0.5)), 1e-6) AS idf
        FROM query AS q CROSS JOIN bot AS s JOIN search_terms AS t ON t.bot = s.key AND t.term = q.term
      ),
      scored AS (
        SELECT p.chunk_id, sum(w.idf * (p.frequency * ${K1 + 1}) / (p.frequency + ${K1} * (${1 - B} + ${B} * p.length / s.average))) AS score
        FROM weights AS w CROSS JOIN bot AS s JOIN search_postings AS p ON p.bot = s.key AND p.term = w.term
        GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT $3
      )`;

export const SEARCH_SQL = {
  ...preparedStatements("search", {
    chatbot: "SELECT key, embedder_id, dimensions, chunk_count, hnsw_dimensions, generation, epoch FROM search_chatbots WHERE chatbot_id = $1",
    insertChatbot: "INSERT INTO search_chatbots (chatbot_id, embedder_id, dimensions) VALUES ($1, $2, $3) ON CONFLICT (chatbot_id) DO NOTHING",
    // Writers of one chatbot take turns on its row, so its statistics are updated one step at a time.
    lockChatbot: "SELECT key, embedder_id, dimensions, chunk_count, hnsw_dimensions, generation, epoch FROM search_chatbots WHERE chatbot_id = $1 FOR UPDATE",
    chunksOfSources: "SELECT id FROM search_chunks WHERE bot = $1 AND source = ANY($2::bytea[])",
    // Each removed chunk takes one off the document frequency of each of its terms.
    decrementTerms: `WITH counts AS (SELECT term, count(*) AS removed FROM search_postings WHERE bot = $1 AND chunk_id = ANY($2::bigint[]) GROUP BY term)
      UPDATE search_terms AS t SET document_frequency = t.document_frequency - counts.removed
      FROM counts WHERE t.bot = $1 AND t.term = counts.term
      RETURNING t.term, t.document_frequency`,
    deletePostings: "DELETE FROM search_postings WHERE bot = $1 AND chunk_id = ANY($2::bigint[])",
    deleteUnusedTerms: "DELETE FROM search_terms WHERE bot = $1 AND term = ANY($2::text[]) AND document_frequency = 0",
    deleteChunks: "DELETE FROM search_chunks WHERE bot = $1 AND id = ANY($2::bigint[]) RETURNING length",
    // Every change of the chunks bumps the generation the in-process vector copies follow.
    addStatistics: "UPDATE search_chatbots SET chunk_count = chunk_count + $2, total_length = total_length + $3, generation = generation + 1 WHERE key = $1",
    newChunkIds: "SELECT nextval(pg_get_serial_sequence('search_chunks', 'id')) AS id FROM generate_series(1, $1::int)",
    insertPostings: `INSERT INTO search_postings (bot, term, chunk_id, frequency, length)
      SELECT $1, term, chunk_id, frequency, length FROM unnest($2::text[], $3::bigint[], $4::real[], $5::int[]) AS p (term, chunk_id, frequency, length)`,
    // Sorted by term, so two writers (of different chatbots) never wait on each other in a cycle.
    addTerms: `INSERT INTO search_terms (bot, term, document_frequency)
      SELECT $1, term, added FROM unnest($2::text[], $3::bigint[]) AS t (term, added) ORDER BY term
      ON CONFLICT (bot, term) DO UPDATE SET document_frequency = search_terms.document_frequency + excluded.document_frequency`,
    // The BM25 top k, each chunk with its document (a reply's source) read with it: one round trip.
    keyword: `WITH ${BM25_TOP}
      SELECT c.id, c.source, c.title, c.body, scored.score, d.id AS document_id, d.title AS document_title, d.type AS document_type
      FROM scored JOIN search_chunks AS c ON c.id = scored.chunk_id LEFT JOIN search_documents AS d ON d.bot = c.bot AND d.source = c.source
      ORDER BY scored.score DESC, c.id`,
    // Exact nearest neighbours: every vector of the chatbot, cosine distance computed by pgvector.
    exactVectors: `SELECT id, source, title, body, embedding <=> $2::vector AS distance FROM search_chunks
      WHERE bot = $1 AND embedding IS NOT NULL ORDER BY distance, id LIMIT $3`,
    list: "SELECT id, source, title, body FROM search_chunks WHERE bot = $1 AND id > $2 ORDER BY id LIMIT $3",
    chunksOfChatbot: "SELECT id FROM search_chunks WHERE bot = $1 AND id = ANY($2::bigint[])",
    // The top chunks of an in-process vector search, by id, with the chatbot's row as it is now: the
    // search checks the copy it scored was that version (else refreshes and scores again).
    // Each chunk with its document (a reply's source), as the keyword search reads them.
    chunksById: `SELECT b.key, b.embedder_id, b.dimensions, b.chunk_count, b.hnsw_dimensions, b.generation, b.epoch, c.id, c.source, c.title, c.body,
        d.id AS document_id, d.title AS document_title, d.type AS document_type
      FROM search_chatbots AS b LEFT JOIN search_chunks AS c ON c.bot = b.key AND c.id = ANY($2::bigint[])
        LEFT JOIN search_documents AS d ON d.bot = c.bot AND d.source = c.source
      WHERE b.chatbot_id = $1`,
    // Replaced vectors: the in-process copies read everything again.
    bumpEpoch: "UPDATE search_chatbots SET epoch = epoch + 1 WHERE key = $1",
    setSpace: "UPDATE search_chatbots SET embedder_id = $2, dimensions = $3 WHERE key = $1",
    clearEmbeddings: "UPDATE search_chunks SET embedding = NULL WHERE bot = $1",
  }),
  // Embeddings as pgvector's text or, in process, float32 bytes (see vectorColumn).
  insertChunks: (vectors: VectorMode) =>
    preparedStatement(`parley_search_insertChunks_${vectors}`, `INSERT INTO search_chunks (id, bot, source, title, body, length, embedding)
    SELECT id, $1, source, title, body, length, ${vectors === "pgvector" ? "embedding::vector" : "embedding"}
    FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::bytea[], $6::int[], $7::${vectors === "pgvector" ? "text" : "bytea"}[]) AS c (id, source, title, body, length, embedding)`),
  // A chat's retrieval in one statement (hybridSearch): the chatbot's row as it is now, then the
  // keyword arm's hits (as above) and the vector arm's, each chunk with its document, best first
  // within its arm. The vector arm is pgvector's exact scan in the space the query was embedded
  // in ($5, $6: nothing is scanned when the row's space is another), or, in process, the chunks
  // the held copy scored best, by id ($4, in the copy's order). One row with no hit when none.
  hybrid: (vectors: VectorMode) =>
    preparedStatement(`parley_search_hybrid_${vectors}`, `WITH ${BM25_TOP},
      nearest AS (${
        vectors === "pgvector"
          ? `SELECT c.id, c.embedding <=> $4::vector AS score FROM bot JOIN search_chunks AS c ON c.bot = bot.key
        WHERE bot.embedder_id = $5 AND bot.dimensions = $6 AND c.embedding IS NOT NULL ORDER BY score, c.id LIMIT $7`
          : "SELECT id, NULL::float8 AS score FROM unnest($4::bigint[]) AS id"
      }),
      hits AS (
        SELECT 'keyword' AS arm, chunk_id AS id, score, row_number() OVER (ORDER BY score DESC, chunk_id) AS rank FROM scored
        UNION ALL SELECT 'vector', id, score, row_number() OVER (ORDER BY score, id) FROM nearest
      )
    SELECT bot.key, bot.embedder_id, bot.dimensions, bot.chunk_count, bot.hnsw_dimensions, bot.generation, bot.epoch,
      hits.arm, hits.score, c.id, c.source, c.title, c.body, d.id AS document_id, d.title AS document_title, d.type AS document_type
    FROM bot LEFT JOIN hits ON true LEFT JOIN search_chunks AS c ON c.bot = bot.key AND c.id = hits.id
      LEFT JOIN search_documents AS d ON d.bot = c.bot AND d.source = c.source
    ORDER BY hits.arm, hits.rank`),
  setEmbeddings: (vectors: VectorMode) =>
    preparedStatement(`parley_search_setEmbeddings_${vectors}`, `UPDATE search_chunks AS c SET embedding = ${vectors === "pgvector" ? "v.embedding::vector" : "v.embedding"}
    FROM unnest($2::bigint[], $3::${vectors === "pgvector" ? "text" : "bytea"}[]) AS v (id, embedding) WHERE c.bot = $1 AND c.id = v.id`),
};

/** The name of a chatbot's partial HNSW index. */
export const hnswIndexName = (key: number) => `search_chunks_hnsw_${Math.trunc(key)}`;

/** Builds a chatbot's HNSW index over its own rows only, so a search filtered by chatbot loses no recall. */
export const createHnswIndex = (key: number, dimensions: number) =>
  `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${hnswIndexName(key)} ON search_chunks
   USING hnsw ((embedding::vector(${Math.trunc(dimensions)})) vector_cosine_ops) WHERE bot = ${Math.trunc(key)}`;

/** Nearest neighbours through the chatbot's HNSW index (the same expression and predicate as the index). */
export const hnswVectors = (key: number, dimensions: number) =>
  `SELECT id, source, title, body, embedding::vector(${Math.trunc(dimensions)}) <=> $1::vector(${Math.trunc(dimensions)}) AS distance
   FROM search_chunks WHERE bot = ${Math.trunc(key)} AND embedding IS NOT NULL ORDER BY distance LIMIT $2`;
