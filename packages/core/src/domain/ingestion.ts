import type { KnowledgeRequest } from "./knowledge.js";

/** Where an ingestion stands: waiting, being read, or finished one way or the other. */
export type IngestionStatus = "queued" | "running" | "succeeded" | "failed";

/** One source an ingestion could not read, with the reason in words. */
export interface IngestionError {
  source: string;
  detail: string;
}

/**
 * Knowledge being added to a chatbot in the background (docs/design.md §12). It survives a
 * restart: a running ingestion holds a lease, and one whose lease ran out (its process died)
 * is taken up again from the start by the next runner; documents already replaced stay.
 */
export interface Ingestion {
  id: string;
  /** The owner of the chatbot. */
  userId: string;
  chatbotId: string;
  status: IngestionStatus;
  /** What to read, as asked. */
  request: KnowledgeRequest;
  /** Documents the request gives, once known (null before). */
  documentsTotal: number | null;
  /** Documents read so far: indexed or failed. */
  documentsDone: number;
  /** Chunks indexed so far. */
  chunks: number;
  errors: IngestionError[];
  createdAt: number;
  /** When a runner last took it up. */
  startedAt: number | null;
  finishedAt: number | null;
  /** While running: until when the runner holds it. */
  leasedUntil: number | null;
  /** How many times a runner has claimed it; one that keeps losing its lease is given up (failed). */
  attempts: number;
}

/** A document of a chatbot's knowledge, as the search index keeps it. */
export interface IndexedDocument {
  id: string;
  chatbotId: string;
  /** The file name or URL it came from; adding the same source again replaces it. */
  source: string;
  title: string;
  /** `pdf`, `docx`, `html`, `markdown` or `text`. */
  type: string;
  chunks: number;
  /** Size of the text extracted, in UTF-8 bytes. */
  bytes: number;
  createdAt: number;
  updatedAt: number;
}
