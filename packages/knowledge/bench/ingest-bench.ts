// `npm run bench:ingest`: how fast @parley/knowledge reads knowledge, and its memory.
// 1. pages per second reading the 200-page PDF fixture (test/fixtures/catalogue-200-pages.pdf);
// 2. pages per second crawling a 100-page site served on 127.0.0.1 (robots.txt, one request
//    per page, breadth-first, sequential as the crawler is);
// 3. peak memory (max RSS of a fresh process) reading a 25 MiB Markdown file and a 25 MiB PDF
//    (the 200-page catalogue with 24 MiB of random bytes attached by qpdf, standing in for the
//    images that make real PDFs that large: pdf.js reads neither to extract text), against the
//    same process doing nothing;
// 4. milliseconds to read one HTML page of 25, 125 and 500 KB (a generated documentation page:
//    navigation, then sections of a heading, a paragraph and a list inside four wrapping divs),
//    as a reader process reads it (`readHtml`), and Mozilla's Readability alone on the same page
//    (at least 5 runs of each, alternated). Options: --runs N (3, the median is reported).
import type { KnowledgeItem, KnowledgeRequest } from "@parley/core";
import { parseHTML } from "linkedom";
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createKnowledgeSources } from "../src/index.js";
import { readArticle, readHtml } from "../src/read-html.js";
import { startTestSite } from "../test/site-server.js";

const { values: flags, positionals } = parseArgs({ options: { runs: { type: "string", default: "3" }, "memory-child": { type: "string" } }, allowPositionals: true });
const FIXTURES = fileURLToPath(new URL("../test/fixtures/", import.meta.url));
const say = (line = "") => process.stdout.write(`${line}\n`);

async function readAll(request: KnowledgeRequest, allowPrivateUrls = false): Promise<KnowledgeItem[]> {
  const items: KnowledgeItem[] = [];
  for await (const item of createKnowledgeSources({ allowPrivateUrls }).read(request, { signal: new AbortController().signal })) items.push(item);
  return items;
}

const pagesOf = (items: KnowledgeItem[]) => items.reduce((sum, item) => sum + ("error" in item ? 0 : (item.document.sections?.length ?? 1)), 0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<number>): Promise<{ pages: number; seconds: number }> {
  const started = process.hrtime.bigint();
  const pages = await run();
  return { pages, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** In a child process: read one file (or nothing), then print the peak RSS in MiB. */
async function memoryChild(path: string): Promise<void> {
  let pages = 0;
  if (path !== "none") {
    const items = await readAll({ kind: "files", files: [{ name: path.split("/").pop()!, path }] });
    for (const item of items) if ("error" in item) throw new Error(`${item.source}: ${item.error}`);
    pages = pagesOf(items);
  }
  process.stdout.write(JSON.stringify({ peakMiB: process.resourceUsage().maxRSS / 1024, pages }));
}

function peakMemory(path: string): { peakMiB: number; pages: number } {
  const child = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--memory-child", path], { encoding: "utf8" });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as { peakMiB: number; pages: number };
}

/** A documentation page of about `kilobytes` KB: navigation, a footer, and sections nested four divs deep. */
function documentationPage(kilobytes: number): string {
  const section = (index: number) =>
    `<section>${'<div class="wrap">'.repeat(4)}<h2>Step ${index}</h2><p>Step ${index} of the manual explains descaling, the warranty and the keep-warm mode of the kettle.</p><ul><li>Before you start</li><li>What you need</li></ul>${"</div>".repeat(4)}</section>`;
  let body = "";
  for (let index = 1; body.length < kilobytes * 1000; index += 1) body += section(index);
  return `<html><head><title>Manual</title></head><body><nav><a href="/">Home</a> <a href="/help">Help</a></nav><main><article><h1>Manual</h1>${body}</article></main><footer>Kettlebird</footer></body></html>`;
}

function milliseconds(run: () => unknown): number {
  const started = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

async function main(): Promise<void> {
  const runs = Math.max(1, Number(flags.runs));
  say(`machine: ${cpus()[0]?.model ?? "?"}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}, load ${loadavg().map((load) => load.toFixed(1)).join(" ")}`);
  say(`runs: ${runs} each, median reported`);

  const pdf = join(FIXTURES, "catalogue-200-pages.pdf");
  const pdfRuns: { pages: number; seconds: number }[] = [];
  for (let run = 0; run < runs; run += 1) pdfRuns.push(await timed(async () => pagesOf(await readAll({ kind: "files", files: [{ name: "catalogue.pdf", path: pdf }] }))));
  const pdfSeconds = median(pdfRuns.map((run) => run.seconds));
  say(`PDF, 200 pages: ${pdfRuns[0]!.pages} pages read in ${pdfSeconds.toFixed(2)} s = ${(pdfRuns[0]!.pages / pdfSeconds).toFixed(0)} pages/s`);

  const site = await startTestSite({ extraPages: 100 });
  try {
    const crawlRuns: { pages: number; seconds: number }[] = [];
    for (let run = 0; run < runs; run += 1) {
      crawlRuns.push(await timed(async () => (await readAll({ kind: "url", url: `${site.origin}/p/1`, crawl: "site", maxPages: 100 }, true)).filter((item) => !("error" in item)).length));
    }
    const crawlSeconds = median(crawlRuns.map((run) => run.seconds));
    say(`site crawl, 100 pages on 127.0.0.1: ${crawlRuns[0]!.pages} pages in ${crawlSeconds.toFixed(2)} s = ${(crawlRuns[0]!.pages / crawlSeconds).toFixed(0)} pages/s`);
  } finally {
    await site.close();
  }

  for (const kilobytes of [25, 125, 500]) {
    const page = documentationPage(kilobytes);
    // One read first, so the parsers' code is compiled before the timed runs; then the two
    // measurements alternate, so a slower stretch of the machine weighs on both alike.
    readHtml(page, "https://example.com/manual");
    const reads: number[] = [];
    const readabilities: number[] = [];
    for (let run = 0; run < Math.max(runs, 5); run += 1) {
      reads.push(milliseconds(() => readHtml(page, "https://example.com/manual")));
      const document = parseHTML(page).document;
      readabilities.push(milliseconds(() => readArticle(document)));
    }
    say(`HTML page of ${(page.length / 1000).toFixed(0)} KB: read in ${median(reads).toFixed(0)} ms; Readability alone on the page, parsed afresh: ${median(readabilities).toFixed(0)} ms`);
  }

  const folder = mkdtempSync(join(tmpdir(), "parley-bench-ingest-"));
  try {
    const markdown = join(folder, "big.md");
    const paragraph = "The Acme kettle boils water quickly and quietly, and its manual explains descaling, warranty and disposal.\n\n";
    writeFileSync(markdown, `# Big manual\n\n${paragraph.repeat(Math.ceil((25 * 2 ** 20) / paragraph.length))}`.slice(0, 25 * 2 ** 20));
    const baseline = peakMemory("none");
    say(`peak memory, process that reads nothing: ${baseline.peakMiB.toFixed(0)} MiB`);
    const text = peakMemory(markdown);
    say(`peak memory, 25 MiB Markdown file: ${text.peakMiB.toFixed(0)} MiB (${(statSync(markdown).size / 2 ** 20).toFixed(1)} MiB read)`);
    const bigPdf = join(folder, "big.pdf");
    if (spawnSync("qpdf", ["--version"]).status === 0) {
      const attachment = join(folder, "photos.bin");
      writeFileSync(attachment, randomBytes(24 * 2 ** 20));
      execFileSync("qpdf", [pdf, "--add-attachment", attachment, "--", bigPdf]);
      const result = peakMemory(bigPdf);
      say(`peak memory, ${(statSync(bigPdf).size / 2 ** 20).toFixed(1)} MiB PDF (${result.pages} text pages + attachment): ${result.peakMiB.toFixed(0)} MiB`);
    } else {
      say("peak memory of a 25 MiB PDF: skipped (qpdf is not installed)");
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

if (flags["memory-child"] !== undefined) await memoryChild(flags["memory-child"]);
else if (positionals.length === 0) await main();
