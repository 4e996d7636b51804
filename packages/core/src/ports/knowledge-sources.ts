import type { KnowledgeItem, KnowledgeRequest } from "../domain/knowledge.js";

/**
 * Turns stored knowledge requests into documents: files by their content (PDF, DOCX, HTML, text),
 * URLs by fetching them. An adapter, because parsers and HTTP clients stay out of the core.
 */
export interface KnowledgeSources {
  /**
   * How many documents the request will give, when known before reading (files), else null.
   * Lets progress show a total from the start.
   */
  estimate(request: KnowledgeRequest): number | null;
  /**
   * The request's documents, one at a time, in order. A source that cannot be read (an encrypted
   * PDF, a page that failed to load, an unsupported type) is yielded as an error and the rest go on.
   * Stops early when `signal` aborts.
   */
  read(request: KnowledgeRequest, options: { signal: AbortSignal }): AsyncIterable<KnowledgeItem>;
}
