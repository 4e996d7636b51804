import type { DocumentInput } from "../admin/ingestion.js";

/** How far to follow a URL: the page alone, the pages its sitemap lists, or same-site links. */
export type CrawlMode = "page" | "sitemap" | "site";

/**
 * A file an ingestion reads: uploaded (its bytes wait in the shared UploadStore under `upload`),
 * or on the reader's own disk at `path` (the CLI's files).
 */
export type KnowledgeFile = { name: string; upload: string } | { name: string; path: string };

/** What an ingestion was asked to read, as stored with it (docs/design.md §12). */
export type KnowledgeRequest =
  | { kind: "text"; title: string; text: string }
  | { kind: "files"; files: KnowledgeFile[] }
  | { kind: "url"; url: string; crawl: CrawlMode; maxPages: number };

/** One document read from a request, or the reason one source could not be read. */
export type KnowledgeItem =
  | { document: DocumentInput; type: string; bytes: number }
  | { source: string; error: string };

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
