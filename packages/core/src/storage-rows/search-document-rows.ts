import type { IndexedDocument } from "../domain/ingestion.js";

/**
 * A document of a search index's catalog as both SQL indexes read it, joined to its chatbot
 * (`d`, `b`). Its source and title are `Text` as the engine stores them: SQLite text,
 * PostgreSQL UTF-8 bytes (BYTEA, which can hold NUL).
 */
export interface SearchDocumentRow<Text = string> {
  id: string;
  source: Text;
  title: Text;
  type: string;
  chunks: number;
  bytes: number;
  created_at: number;
  updated_at: number;
}

export const SEARCH_DOCUMENT_COLUMNS = "d.id, d.source, d.title, d.type, d.chunks, d.bytes, d.created_at, d.updated_at";
export const SEARCH_DOCUMENT_FROM = "search_documents d JOIN search_chatbots b ON b.key = d.bot";

/** The mapper of one chatbot's document rows, its source and title read by `readText`. */
export const searchDocumentFromRow =
  <Text>(chatbotId: string, readText: (stored: Text) => string) =>
  (row: SearchDocumentRow<Text>): IndexedDocument => ({
    id: row.id,
    chatbotId,
    source: readText(row.source),
    title: readText(row.title),
    type: row.type,
    chunks: row.chunks,
    bytes: row.bytes,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });
