import type { Ingestion, IngestionStatus } from "../domain/ingestion.js";
import type { KnowledgeRequest } from "../domain/knowledge.js";

// @parley/core/storage-rows: the row codec the SQL adapters share (SQLite and PostgreSQL) for
// the shapes they both store alike — snake_case columns, times as integer microseconds, JSON as
// text. No SQL here beyond column lists: each adapter keeps its statements, and gives the codec
// its dialect (how it binds a boolean, how it stores a user's text) through `createRowCodec`.

export * from "./rows.js";
export * from "./row-codec.js";
export * from "./search-document-rows.js";

/** An ingestion's row: its request and errors as JSON text. */
export interface IngestionRow {
  id: string;
  user_id: string;
  chatbot_id: string;
  status: string;
  request: string;
  documents_total: number | null;
  documents_done: number;
  chunks: number;
  errors: string;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  leased_until: number | null;
  attempts: number;
}

export const INGESTION_COLUMNS =
  "id, user_id, chatbot_id, status, request, documents_total, documents_done, chunks, errors, created_at, started_at, finished_at, leased_until, attempts";

export const ingestionFromRow = (row: IngestionRow): Ingestion => ({
  id: row.id,
  userId: row.user_id,
  chatbotId: row.chatbot_id,
  status: row.status as IngestionStatus,
  request: JSON.parse(row.request) as KnowledgeRequest,
  documentsTotal: row.documents_total,
  documentsDone: row.documents_done,
  chunks: row.chunks,
  errors: JSON.parse(row.errors) as Ingestion["errors"],
  createdAt: row.created_at,
  startedAt: row.started_at,
  finishedAt: row.finished_at,
  leasedUntil: row.leased_until,
  attempts: row.attempts,
});
