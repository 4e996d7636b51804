import type { Migration } from "./migration.js";

/**
 * Chunks and their keyword index. `search_chunks` is the one copy of each chunk's text and
 * embedding (float32, any dimension); the FTS5 table indexes title and body as external content,
 * kept in step by triggers in the same transaction. Vectors are searched from an in-process
 * int8 copy (sqlite-search-index-vectors.ts) that follows the chatbot's `generation` and `epoch`;
 * docs/retrieval.md explains why not sqlite-vec's vec0 KNN.
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

      -- The bot column (the chatbot's integer key) is ANDed into every MATCH and weighs 0 in bm25.
      CREATE VIRTUAL TABLE search_fts USING fts5 (
        bot, title, body,
        content = 'search_chunks', content_rowid = 'id',
        tokenize = 'porter unicode61'
      );

      CREATE TRIGGER search_chunks_inserted AFTER INSERT ON search_chunks BEGIN
        INSERT INTO search_fts (rowid, bot, title, body) VALUES (new.id, new.bot, new.title, new.body);
      END;
      CREATE TRIGGER search_chunks_deleted AFTER DELETE ON search_chunks BEGIN
        INSERT INTO search_fts (search_fts, rowid, bot, title, body) VALUES ('delete', old.id, old.bot, old.title, old.body);
      END;
      CREATE TRIGGER search_chunks_updated AFTER UPDATE OF bot, title, body ON search_chunks BEGIN
        INSERT INTO search_fts (search_fts, rowid, bot, title, body) VALUES ('delete', old.id, old.bot, old.title, old.body);
        INSERT INTO search_fts (rowid, bot, title, body) VALUES (new.id, new.bot, new.title, new.body);
      END;
    `);
  },
};
