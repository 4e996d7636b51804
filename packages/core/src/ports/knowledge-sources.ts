import type { DocumentInput } from "../admin/ingestion.js";

/** How far to follow a URL: the page alone, the pages its sitemap lists, or same-site links. */
export type CrawlMode = "page" | "sitemap" | "site";

/**
 * What an ingestion was asked to read, as stored with it (docs/design.md §12). Files were
 * written to disk by whoever received them (the server streams uploads to a temporary folder).
 */
export type KnowledgeRequest =
  | { kind: "text"; title: string; text: string }
  | { kind: "files"; files: { name: string; path: string }[] }
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
