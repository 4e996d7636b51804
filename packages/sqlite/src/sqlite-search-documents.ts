import { randomUUID } from "node:crypto";
import { documentBytesOf, documentTypeOf, type DocumentToIndex, type IndexedDocument } from "@parley/core";
import { SEARCH_DOCUMENT_COLUMNS as COLUMNS, SEARCH_DOCUMENT_FROM as FROM, searchDocumentFromRow, type SearchDocumentRow as DocumentRow } from "@parley/core/storage-rows";
import type { Database } from "better-sqlite3";

const asWritten = (text: string) => text;

/**
 * The document catalog of the SQLite search index (migration 006): one row per (chatbot,
 * source), written by the index's own transactions together with the chunks. A replaced
 * document keeps its id and creation time.
 */
export function createDocumentCatalog(database: Database) {
  const statements = {
    upsert: database.prepare(
      `INSERT INTO search_documents (id, bot, source, title, type, chunks, bytes, created_at, updated_at)
       VALUES (@id, @bot, @source, @title, @type, @chunks, @bytes, @at, @at)
       ON CONFLICT (bot, source) DO UPDATE SET title = excluded.title, type = excluded.type, chunks = excluded.chunks,
         bytes = excluded.bytes, updated_at = excluded.updated_at`,
    ),
    remove: database.prepare("DELETE FROM search_documents WHERE bot = ? AND source = ?"),
    list: database.prepare<{ chatbot_id: string; limit: number; after_at: number | null; after_id: string }, DocumentRow>(
      `SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = @chatbot_id
         AND (@after_at IS NULL OR d.updated_at < @after_at OR (d.updated_at = @after_at AND d.id > @after_id))
       ORDER BY d.updated_at DESC, d.id ASC LIMIT CAST(@limit AS INTEGER)`,
    ),
    byId: database.prepare<[string, string], DocumentRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = ? AND d.id = ?`),
    bySource: database.prepare<[string, string], DocumentRow>(`SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = ? AND d.source = ?`),
    stats: database.prepare<[string], { documents: number; chunks: number | null }>(
      `SELECT count(*) AS documents, sum(d.chunks) AS chunks FROM ${FROM} WHERE b.chatbot_id = ?`,
    ),
  };
  const fromRow = (chatbotId: string) => searchDocumentFromRow(chatbotId, asWritten);

  return {
    /** Records a document just written (in the caller's transaction); no chunks removes it. */
    record(bot: number, document: DocumentToIndex, at: number): void {
      if (document.chunks.length === 0) {
        statements.remove.run(bot, document.source);
        return;
      }
      statements.upsert.run({
        id: randomUUID(),
        bot,
        source: document.source,
        title: document.documentTitle ?? document.title,
        type: documentTypeOf(document),
        chunks: document.chunks.length,
        bytes: documentBytesOf(document),
        at,
      });
    },
    /** Forgets a removed document (in the caller's transaction). */
    remove(bot: number, source: string): void {
      statements.remove.run(bot, source);
    },
    list(chatbotId: string, options: { limit: number; after?: { at: number; id: string } }): IndexedDocument[] {
      const rows = statements.list.all({ chatbot_id: chatbotId, limit: options.limit, after_at: options.after?.at ?? null, after_id: options.after?.id ?? "" });
      return rows.map(fromRow(chatbotId));
    },
    get(chatbotId: string, key: { id: string } | { source: string }): IndexedDocument | null {
      const row = "id" in key ? statements.byId.get(chatbotId, key.id) : statements.bySource.get(chatbotId, key.source);
      return row ? fromRow(chatbotId)(row) : null;
    },
    stats(chatbotId: string): { documents: number; chunks: number } {
      const row = statements.stats.get(chatbotId)!;
      return { documents: row.documents, chunks: row.chunks ?? 0 };
    },
  };
}
