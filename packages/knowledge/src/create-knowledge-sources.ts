import { open, rm, rmdir, stat } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import type { KnowledgeItem, KnowledgeRequest, KnowledgeSources } from "@parley/core";
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
   * Where the server writes uploads: files of a request that lie in this folder are deleted
   * (with the upload's own folder) once the whole request has been read; an aborted read keeps
   * them for the run that resumes it. Files elsewhere (the CLI's) are never touched.
   */
  uploadsFolder?: string;
  /** Which addresses count as public (default `isPublicAddress`); tests widen it to treat a local site as public. */
  isPublicAddress?: (address: string) => boolean;
  /** Limits of the worker threads documents are parsed in: time, memory, PDF pages, HTML and DOCX sizes. */
  documents?: DocumentReaderOptions;
}

/** Reads knowledge from files (PDF, DOCX, HTML, Markdown, text) and from the web, as the core's port. */
export function createKnowledgeSources(options: KnowledgeSourcesOptions = {}): KnowledgeSources {
  const allowPrivateUrls = options.allowPrivateUrls ?? process.env.PARLEY_ALLOW_PRIVATE_URLS === "true";
  const maxPageBytes = options.maxPageBytes ?? 2 * 1024 * 1024;
  const maxFileBytes = options.maxFileBytes ?? 25 * 1024 * 1024;
  const userAgent = options.userAgent ?? PARLEY_USER_AGENT;
  const userAgentToken = userAgent.split("/")[0]!.trim();
  // Parsing happens in worker threads: a hostile document never holds the server's event loop.
  const reader = createDocumentReader(options.documents);

  async function* readFiles(files: { name: string; path: string }[], signal: AbortSignal): AsyncGenerator<KnowledgeItem> {
    for (const file of files) {
      if (signal.aborted) return;
      try {
        const bytes = await readFileWithin(file.path, maxFileBytes);
        const { document, type } = await reader.read({ bytes, name: file.name, source: file.name }, signal);
        yield { document, type, bytes: bytes.length };
      } catch (error) {
        if (!(error instanceof DocumentError)) throw error;
        yield { source: file.name, error: error.message };
      }
    }
    if (options.uploadsFolder !== undefined && !signal.aborted) await removeUploads(files, options.uploadsFolder);
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

/** Deletes the uploaded files of a request that has been read, and the folders they were in. */
async function removeUploads(files: { path: string }[], uploadsFolder: string): Promise<void> {
  const root = resolve(uploadsFolder) + sep;
  const folders = new Set<string>();
  for (const file of files) {
    const path = resolve(file.path);
    if (!path.startsWith(root)) continue;
    await rm(path, { force: true });
    if (dirname(path) + sep !== root) folders.add(dirname(path));
  }
  // Only an emptied folder goes: another request's files may share it.
  for (const folder of folders) await rmdir(folder).catch(() => undefined);
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
