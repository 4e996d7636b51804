// What knowledge is made of on its way in: a document to index, and what an ingestion is asked to
// read (files, a URL). Types only, shared by the ingestion steps, the KnowledgeSources port and
// the stored ingestions, so none of them imports another.
import type { Section } from "../retrieval/chunker.js";

/** A document to add to a chatbot's knowledge. */
export interface DocumentInput {
  /** Identifies the document (e.g. its path); ingesting the same source again replaces it. */
  source: string;
  /** Shown with its chunks in the prompt; defaults to the source's last path segment. */
  title?: string;
  /** The whole text; chunked as one piece when there are no `sections`. */
  text: string;
  /**
   * The text in labelled parts (PDF pages, DOCX headings), chunked part by part with the label at
   * the start of each chunk, so an answer can cite "page 3". When given, it replaces `text` for chunking.
   */
  sections?: Section[];
  /** `pdf`, `docx`, `html`, `markdown` or `text`, as read (default: from the source's extension). */
  type?: string;
}

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
