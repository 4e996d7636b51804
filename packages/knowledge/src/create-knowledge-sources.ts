import { open, stat } from "node:fs/promises";
import type { KnowledgeFile, KnowledgeItem, KnowledgeRequest, KnowledgeSources, UploadStore } from "@parley/core";
import { createFetcher, formatBytes } from "./create-fetcher.js";
import { createDocumentReader, type DocumentReaderOptions } from "./create-document-reader.js";
import { DocumentError } from "./document-error.js";
import type { LookupFunction } from "./public-lookup.js";
import { readUrl } from "./read-url.js";

/** The user agent Parley fetches with; robots.txt groups for `ParleyBot` apply to it. */
export const PARLEY_USER_AGENT = "ParleyBot/0.1 (+https://github.com/parley)";

/** Options of `createKnowledgeSources`; every limit defaults to docs/design.md §12. */
export interface KnowledgeSourcesOptions {
  /** Fetch loopback, private and link-local addresses too; defaults to `PARLEY_ALLOW_PRIVATE_URLS=true`. */
  allowPrivateUrls?: boolean;
  /** Largest page (or linked file) fetched, in bytes (default 2 MiB). */
  maxPageBytes?: number;
  /** Largest file read from disk, in bytes (default 25 MiB, the upload limit). */
  maxFileBytes?: number;
  /** Time for one fetch, redirects included, in milliseconds (default 10 s). */
  fetchTimeoutMs?: number;
  /** Redirects followed per fetch (default 5). */
  maxRedirects?: number;
  /** Pages fetched per sitemap or site crawl when the request does not say (default 50). */
  defaultMaxPages?: number;
  userAgent?: string;
  /** DNS lookup, for tests that map names to addresses; defaults to `dns.lookup`. */
  lookup?: LookupFunction;
  /**
   * Where uploaded files wait (the database every process shares). A request's uploads are
   * removed once the whole request has been read; an aborted read keeps them for the run that
   * resumes it. Without it, uploaded files cannot be read. Files on disk (the CLI's) are never touched.
   */
  uploads?: UploadStore;
  /** Which addresses count as public (default `isPublicAddress`); tests widen it to treat a local site as public. */
  isPublicAddress?: (address: string) => boolean;
  /** Limits of the reader processes documents are parsed in: time, memory, PDF pages, HTML and DOCX sizes. */
  documents?: DocumentReaderOptions;
}

/** Reads knowledge from files (PDF, DOCX, HTML, Markdown, text) and from the web, as the core's port. */
export function createKnowledgeSources(options: KnowledgeSourcesOptions = {}): KnowledgeSources {
  const allowPrivateUrls = options.allowPrivateUrls ?? process.env.PARLEY_ALLOW_PRIVATE_URLS === "true";
  const maxPageBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
  const maxFileBytes = options.maxFileBytes ?? 25 * 1024 * 1024;
  const userAgent = options.userAgent ?? PARLEY_USER_AGENT;
  const userAgentToken = userAgent.split("/")[0]!.trim();
  // Parsing happens in child processes: a hostile document never holds the server's event loop.
  const reader = createDocumentReader(options.documents);

  /** An uploaded file's bytes from the store, or a file's from disk. */
  async function bytesOf(file: KnowledgeFile): Promise<Uint8Array> {
    if ("path" in file) return readFileWithin(file.path, maxFileBytes);
    const bytes = await options.uploads?.read(file.upload);
    if (bytes === undefined || bytes === null) throw new DocumentError("The uploaded file is no longer available.");
    if (bytes.byteLength > maxFileBytes) throw new DocumentError(`The file is larger than ${formatBytes(maxFileBytes)}.`);
    return bytes;
  }

  async function* readFiles(files: KnowledgeFile[], signal: AbortSignal): AsyncGenerator<KnowledgeItem> {
    for (const file of files) {
      if (signal.aborted) return;
      try {
        const bytes = await bytesOf(file);
        const { document, type } = await reader.read({ bytes, name: file.name, source: file.name }, signal);
        yield { document, type, bytes: bytes.length };
      } catch (error) {
        if (!(error instanceof DocumentError)) throw error;
        yield { source: file.name, error: error.message };
      }
    }
    const uploaded = files.flatMap((file) => ("upload" in file ? [file.upload] : []));
    if (options.uploads !== undefined && uploaded.length > 0 && !signal.aborted) await options.uploads.remove(uploaded);
  }

  async function* readWeb(url: string, crawl: "page" | "sitemap" | "site", maxPages: number, signal: AbortSignal): AsyncGenerator<KnowledgeItem> {
    const fetcher = createFetcher({
      maxBytes: maxPageBytes,
      timeoutMs: options.fetchTimeoutMs ?? 10_000,
      maxRedirects: options.maxRedirects ?? 5,
      userAgent,
      allowPrivateUrls,
      ...(options.lookup ? { lookup: options.lookup } : {}),
      ...(options.isPublicAddress ? { isPublicAddress: options.isPublicAddress } : {}),
    });
    try {
      yield* readUrl(url, crawl, crawl === "page" ? 1 : Math.max(1, maxPages), { fetcher, maxPageBytes, userAgentToken, signal, read: reader.read });
    } finally {
      fetcher.close();
    }
  }

  return {
    estimate(request) {
      if (request.kind === "files") return request.files.length;
      if (request.kind === "text" || request.crawl === "page") return 1;
      return null;
    },
    read(request: KnowledgeRequest, { signal }) {
      if (request.kind === "files") return readFiles(request.files, signal);
      if (request.kind === "url") return readWeb(request.url, request.crawl, request.maxPages || (options.defaultMaxPages ?? 50), signal);
      return (async function* () {
        const text = request.text;
        yield { document: { source: request.title, title: request.title, text }, type: "text", bytes: Buffer.byteLength(text) };
      })();
    },
  };
}

/** A file's bytes, refused (as a DocumentError) when missing or larger than `maxBytes`. */
async function readFileWithin(path: string, maxBytes: number): Promise<Uint8Array> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile()) throw new DocumentError("The file could not be read.");
  if (info.size > maxBytes) throw new DocumentError(`The file is larger than ${formatBytes(maxBytes)}.`);
  const handle = await open(path, "r");
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}
