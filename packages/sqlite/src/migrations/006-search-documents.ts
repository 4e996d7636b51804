import { randomUUID } from "node:crypto";
import { documentTypeOf } from "@parley/core";
import type { Migration } from "./migration.js";

/**
 * The documents of each chatbot's knowledge, kept by the search index in the same transaction
 * as their chunks, so a document's chunk count is never out of step with its chunks. Documents
 * indexed before this step are listed from their chunks (type from the source's extension,
 * size from the chunks' text, created now).
 */
export const searchDocumentsSchema: Migration = {
  version: 6,
  name: "search-documents",
  up(database) {
    database.exec(`
      CREATE TABLE search_documents (
        id TEXT NOT NULL PRIMARY KEY,
        bot INTEGER NOT NULL REFERENCES search_chatbots (key),
        source TEXT NOT NULL,
        title TEXT NOT NULL,
        type TEXT NOT NULL,
        chunks INTEGER NOT NULL CHECK (chunks >= 0),
        bytes INTEGER NOT NULL CHECK (bytes >= 0),
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        UNIQUE (bot, source)
      ) STRICT;
      CREATE INDEX search_documents_by_update ON search_documents (bot, updated_at DESC, id);
    `);
    const now = Date.now() * 1000;
    const rows = database
      .prepare(
        `SELECT bot, source, min(title) AS title, count(*) AS chunks, sum(length(CAST(body AS BLOB))) AS bytes
         FROM search_chunks GROUP BY bot, source`,
      )
      .all() as { bot: number; source: string; title: string; chunks: number; bytes: number }[];
    const insert = database.prepare(
      `INSERT INTO search_documents (id, bot, source, title, type, chunks, bytes, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const row of rows) {
      insert.run(randomUUID(), row.bot, row.source, row.title, documentTypeOf({ source: row.source }), row.chunks, row.bytes, now, now);
    }
  },
};
