import { randomUUID } from "node:crypto";
import { documentBytesOf, documentTypeOf, type DocumentToIndex, type IndexedDocument } from "@parley/core";
import { SEARCH_DOCUMENT_COLUMNS as COLUMNS, SEARCH_DOCUMENT_FROM as FROM, searchDocumentFromRow, type SearchDocumentRow } from "@parley/core/storage-rows";
import type pg from "pg";
import { fromBytes, toBytes } from "./postgres-text.js";

type DocumentRow = SearchDocumentRow<Buffer>;

const SQL = {
  // A replaced document keeps its id and creation time.
  upsert: `INSERT INTO search_documents (id, bot, source, title, type, chunks, bytes, created_at, updated_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
    ON CONFLICT (bot, source) DO UPDATE SET title = excluded.title, type = excluded.type, chunks = excluded.chunks,
      bytes = excluded.bytes, updated_at = excluded.updated_at`,
  remove: "DELETE FROM search_documents WHERE bot = $1 AND source = ANY($2::bytea[])",
  list: `SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = $1
      AND ($3::bigint IS NULL OR d.updated_at < $3 OR (d.updated_at = $3 AND d.id > $4))
    ORDER BY d.updated_at DESC, d.id ASC LIMIT $2`,
  byId: `SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = $1 AND d.id = $2`,
  bySource: `SELECT ${COLUMNS} FROM ${FROM} WHERE b.chatbot_id = $1 AND d.source = $2`,
  stats: `SELECT count(*) AS documents, coalesce(sum(d.chunks), 0)::bigint AS chunks FROM ${FROM} WHERE b.chatbot_id = $1`,
} as const;

const fromRow = (chatbotId: string) => searchDocumentFromRow(chatbotId, fromBytes);

/**
 * Records documents just written, in order, in the caller's transaction: each stamped with its
 * own `now()` (as the other indexes stamp them); a document with no chunks is forgotten.
 */
export async function recordDocuments(client: pg.PoolClient, bot: number, documents: DocumentToIndex[], now: () => number): Promise<void> {
  for (const document of documents) {
    const at = now();
    if (document.chunks.length === 0) {
      await client.query(SQL.remove, [bot, [toBytes(document.source)]]);
      continue;
    }
    const title = toBytes(document.documentTitle ?? document.title);
    await client.query(SQL.upsert, [randomUUID(), bot, toBytes(document.source), title, documentTypeOf(document), document.chunks.length, documentBytesOf(document), at]);
  }
}

/** Forgets removed documents, in the caller's transaction. */
export async function forgetDocuments(client: pg.PoolClient, bot: number, sources: string[]): Promise<void> {
  await client.query(SQL.remove, [bot, sources.map(toBytes)]);
}

/**
 * The document catalog of the PostgreSQL search index: one row per (chatbot, source), written
 * by the index's own transactions together with the chunks.
 */
export function createDocumentCatalog(pool: pg.Pool) {
  return {
    async list(chatbotId: string, options: { limit: number; after?: { at: number; id: string } }): Promise<IndexedDocument[]> {
      const { rows } = await pool.query<DocumentRow>(SQL.list, [chatbotId, Math.max(0, Math.floor(options.limit)), options.after?.at ?? null, options.after?.id ?? ""]);
      return rows.map(fromRow(chatbotId));
    },
    async get(chatbotId: string, key: { id: string } | { source: string }): Promise<IndexedDocument | null> {
      const { rows } = "id" in key ? await pool.query<DocumentRow>(SQL.byId, [chatbotId, key.id]) : await pool.query<DocumentRow>(SQL.bySource, [chatbotId, toBytes(key.source)]);
      return rows[0] ? fromRow(chatbotId)(rows[0]) : null;
    },
    async stats(chatbotId: string): Promise<{ documents: number; chunks: number }> {
      const { rows } = await pool.query<{ documents: number; chunks: number }>(SQL.stats, [chatbotId]);
      return { documents: rows[0]!.documents, chunks: rows[0]!.chunks };
    },
  };
}
