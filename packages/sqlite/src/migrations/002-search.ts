import type { Migration } from "./migration.js";

/**
 * Chunks and their indexes. `search_chunks` is the one copy of each chunk's text and embedding
 * (float32, any dimension). Each chatbot gets its own contentless FTS5 table when its first
 * document arrives, written in the same transaction as the chunks. Vectors are searched from an
 * in-process int8 copy (sqlite-search-index-vectors.ts) that follows the chatbot's `generation`
 * and `epoch`, and re-scored by sqlite-vec's `vec_distance_cosine`; docs/retrieval.md explains
 * why they are not kept in a vec0 table.
 */
export const searchSchema: Migration = {
  version: 2,
  name: "search",
  up(database) {
    database.exec(`
      CREATE TABLE search_chatbots (
        key INTEGER PRIMARY KEY,
        chatbot_id TEXT NOT NULL UNIQUE,
        embedder_id TEXT NOT NULL,
        dimensions INTEGER NOT NULL CHECK (dimensions > 0),
        -- Bumped by every write to the chatbot's chunks, so in-process copies know they are stale.
        generation INTEGER NOT NULL DEFAULT 0,
        -- Bumped when vectors are replaced in place (reindexing): copies reload in full.
        epoch INTEGER NOT NULL DEFAULT 0
      ) STRICT;

      -- AUTOINCREMENT: a chunk id is never reused, so an id seen once always means the same chunk.
      CREATE TABLE search_chunks (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        bot INTEGER NOT NULL REFERENCES search_chatbots (key),
        source TEXT NOT NULL,
        title TEXT NOT NULL,
        body TEXT NOT NULL,
        embedding BLOB
      ) STRICT;
      CREATE INDEX search_chunks_by_source ON search_chunks (bot, source);
      CREATE INDEX search_chunks_by_bot ON search_chunks (bot);

      -- Each chatbot's keyword index is its own FTS5 table, search_fts_<key>, created with the
      -- chatbot (sqlite-search-index-keyword.ts), so BM25 uses the chatbot's own statistics.
    `);
  },
};
