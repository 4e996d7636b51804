import type { CrawlMode, DocumentInput, KnowledgeRequest, KnowledgeSources } from "@parley/core";
import { createKnowledgeSources } from "@parley/knowledge";
import { readdir, stat } from "node:fs/promises";
import { extname, join, resolve } from "node:path";
import { optional, required, UsageError, wholeNumber, type Command, type CommandIo } from "./command.js";

/** Extensions picked up inside folders; a file named on the command line is read whatever its name. */
const FOLDER_EXTENSIONS = new Set([".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".docx"]);
const CRAWL_MODES: CrawlMode[] = ["page", "sitemap", "site"];

/** What `parley ingest` prints: documents indexed, their chunks, and each source that failed. */
export interface IngestSummary {
  documents: number;
  chunks: number;
  errors: { source: string; detail: string }[];
}

/** `parley ingest`: files, folders and URLs into a chatbot's knowledge (docs/design.md §12). */
export const INGEST_COMMAND: Command = {
  name: "ingest",
  usage: "parley ingest --bot BOT_ID PATH|URL... [--crawl page|sitemap|site] [--max-pages N]",
  summary:
    "Add files (PDF, DOCX, HTML, Markdown, text; folders recurse) and web pages to a chatbot's knowledge; a source added again replaces its earlier version. Exits 1 when every document failed.",
  options: { bot: { type: "string" }, crawl: { type: "string" }, "max-pages": { type: "string" } },
  positionals: { min: 1, max: Number.POSITIVE_INFINITY },
  async run(input, { runtime, config, io }) {
    const bot = required(input, "bot");
    const crawl = (optional(input, "crawl") ?? "page") as CrawlMode;
    if (!CRAWL_MODES.includes(crawl)) throw new UsageError(`--crawl must be one of page, sitemap, site (got "${crawl}").`);
    const maxPagesFlag = optional(input, "max-pages");
    const maxPages = maxPagesFlag === undefined ? 50 : wholeNumber(maxPagesFlag, "max-pages");
    if (maxPages < 1) throw new UsageError("--max-pages must be at least 1.");
    const requests = await requestsOf(input.positionals, crawl, maxPages);
    const sources = createKnowledgeSources({ allowPrivateUrls: config.allowPrivateUrls, maxFileBytes: config.maxUploadBytes });
    const bar = progressBar(io);
    const summary = await ingestRequests(requests, sources, (document) => runtime.parley.admin.ingestDocuments(bot, [document]), bar.draw);
    bar.end();
    return summary;
  },
  // Every document failing is a failure of the command; the summary on stdout still says why, per source.
  exitCode: (result) => {
    const summary = result as IngestSummary;
    return summary.documents === 0 && summary.errors.length > 0 ? 1 : 0;
  },
};

/** Reads every request through the sources and indexes each document on its own, as it comes. */
export async function ingestRequests(
  requests: KnowledgeRequest[],
  sources: KnowledgeSources,
  index: (document: DocumentInput) => Promise<{ chunks: number }>,
  onProgress: (progress: { done: number; total: number | null; chunks: number; failed: number }) => void,
): Promise<IngestSummary> {
  const estimates = requests.map((request) => sources.estimate(request));
  const total = estimates.every((estimate) => estimate !== null) ? estimates.reduce((sum, estimate) => sum + estimate!, 0) : null;
  const summary: IngestSummary = { documents: 0, chunks: 0, errors: [] };
  const signal = new AbortController().signal;
  for (const request of requests) {
    for await (const item of sources.read(request, { signal })) {
      if ("error" in item) summary.errors.push({ source: item.source, detail: item.error });
      else {
        summary.chunks += (await index(item.document)).chunks;
        summary.documents += 1;
      }
      onProgress({ done: summary.documents + summary.errors.length, total, chunks: summary.chunks, failed: summary.errors.length });
    }
  }
  return summary;
}

/** The knowledge requests of the command line: one per URL, and one for all the files. */
async function requestsOf(arguments_: string[], crawl: CrawlMode, maxPages: number): Promise<KnowledgeRequest[]> {
  const files: { name: string; path: string }[] = [];
  const requests: KnowledgeRequest[] = [];
  for (const argument of arguments_) {
    if (/^https?:\/\//i.test(argument)) {
      requests.push({ kind: "url", url: argument, crawl, maxPages });
      continue;
    }
    const absolute = resolve(argument);
    const info = await stat(absolute).catch(() => null);
    if (!info) throw new Error(`No such file or folder: ${argument}`);
    // A file's source is its absolute path, so adding it again (from anywhere) replaces it.
    const inFolder = (path: string) => FOLDER_EXTENSIONS.has(extname(path).toLowerCase());
    for (const path of info.isDirectory() ? await filesUnder(absolute, inFolder) : [absolute]) {
      if (!files.some((file) => file.path === path)) files.push({ name: path, path });
    }
  }
  return files.length > 0 ? [{ kind: "files", files }, ...requests] : requests;
}

/** A one-line progress bar on stderr when it is a terminal; nothing otherwise. */
function progressBar(io: CommandIo) {
  const started = performance.now();
  let drawn = false;
  return {
    draw({ done, total, chunks, failed }: { done: number; total: number | null; chunks: number; failed: number }) {
      if (io.stderr.isTTY !== true) return;
      const width = 20;
      const filled = total ? Math.round((Math.min(done, total) / total) * width) : 0;
      const bar = total ? `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}` : `${done}`;
      const rate = Math.round(chunks / Math.max((performance.now() - started) / 1000, 0.001));
      io.stderr.write(`\r${bar} documents, ${chunks} chunks, ${failed} failed, ${rate} chunks/s `);
      drawn = true;
    },
    end() {
      if (drawn) io.stderr.write("\n");
    },
  };
}

/** The files under a folder that `accept` takes, recursively, hidden ones left out, in a stable order. */
async function filesUnder(folder: string, accept: (path: string) => boolean): Promise<string[]> {
  const entries = (await readdir(folder, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...(await filesUnder(path, accept)));
    else if (entry.isFile() && accept(path)) files.push(path);
  }
  return files;
}
