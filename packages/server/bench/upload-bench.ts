// Part of `npm run bench:ingest`: peak memory of a server process that receives a 25 MiB
// multipart upload (streamed to disk by readUploadedFiles), then of one that also reads it with
// @parley/knowledge, against the same process receiving a 1 KiB upload. The file is a
// Markdown file of exactly 25 MiB (the limit is per file). BENCH_UPLOAD_MIB=N changes the size and the limit.
// Then a DOCX holding 4 MiB of text in sections, about the most a reader's 192 MiB heap lets
// mammoth read (6 MiB is too complex): a reader process sends a sectioned document's text once,
// in its sections, and the server joins them (DocumentMessage).
import { spawn } from "node:child_process";
import { mkdtempSync, openAsBlob, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createKnowledgeSources } from "@parley/knowledge";
import { largeDocx } from "@parley/knowledge/testing";
import { readUploadedFiles } from "../src/http/read-uploaded-files.js";

const LIMIT = Number(process.env.BENCH_UPLOAD_MIB ?? 25) * 1024 * 1024;
const DOCX_TEXT_BYTES = 4 * 1024 * 1024;
const say = (line = "") => process.stdout.write(`${line}\n`);

/** In the child: serve one upload, read its files, answer with the peak RSS, and exit. */
async function serveOnce(read: boolean): Promise<void> {
  const server = createServer((request, response) => {
    void readUploadedFiles(request, { maxFileBytes: LIMIT }).then(async ({ files, folder }) => {
      let documents = 0;
      if (read) {
        for await (const item of createKnowledgeSources().read({ kind: "files", files }, { signal: new AbortController().signal })) if (!("error" in item)) documents += 1;
      }
      rmSync(folder, { recursive: true, force: true });
      response.end(JSON.stringify({ peakMiB: process.resourceUsage().maxRSS / 1024, bytes: files[0]?.bytes, documents }));
      server.close();
    });
  });
  server.listen(0, "127.0.0.1", () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
}

async function measure(path: string, mode: "store" | "read", name = "big.md"): Promise<{ peakMiB: number; bytes: number; documents: number }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--serve", mode], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) => child.stdout.once("data", (data: Buffer) => resolve(data.toString().trim())));
  const form = new FormData();
  form.append("files", await openAsBlob(path), name);
  const response = await fetch(`http://127.0.0.1:${port}/`, { method: "POST", body: form });
  const result = (await response.json()) as { peakMiB: number; bytes: number; documents: number };
  await new Promise((resolve) => child.once("exit", resolve));
  return result;
}

async function main(): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "parley-bench-upload-"));
  try {
    const small = join(folder, "small.md");
    writeFileSync(small, "# Small\n\nOne kilobyte of text.\n".repeat(32));
    const big = join(folder, "big.md");
    const paragraph = "The Acme kettle boils water quickly and quietly, and its manual explains descaling.\n\n";
    writeFileSync(big, `# Big\n\n${paragraph.repeat(Math.ceil(LIMIT / paragraph.length))}`.slice(0, LIMIT));
    const baseline = await measure(small, "read");
    say(`peak memory, server receiving and reading a 1 KiB upload: ${baseline.peakMiB.toFixed(0)} MiB`);
    const stored = await measure(big, "store");
    say(`peak memory, server receiving a ${(stored.bytes / 2 ** 20).toFixed(1)} MiB upload (streamed to disk): ${stored.peakMiB.toFixed(0)} MiB`);
    const read = await measure(big, "read");
    say(`peak memory, server receiving and reading a ${(read.bytes / 2 ** 20).toFixed(1)} MiB upload (${read.documents} document): ${read.peakMiB.toFixed(0)} MiB`);
    const docx = join(folder, "big.docx");
    writeFileSync(docx, largeDocx(DOCX_TEXT_BYTES));
    const sectioned = await measure(docx, "read", "big.docx");
    say(`peak memory, server receiving and reading a ${(sectioned.bytes / 2 ** 20).toFixed(1)} MiB DOCX of ${DOCX_TEXT_BYTES / 2 ** 20} MiB of text (${sectioned.documents} document): ${sectioned.peakMiB.toFixed(0)} MiB`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const serveAt = process.argv.indexOf("--serve");
if (serveAt >= 0) await serveOnce(process.argv[serveAt + 1] === "read");
else await main();
