import type { KnowledgeItem, KnowledgeRequest } from "@parley/core";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDocumentReader, createKnowledgeSources, type KnowledgeSourcesOptions } from "../src/index.js";
import { watchEventLoop } from "./event-loop-watch.js";
import { deeplyNestedHtml, manyPagePdf, poisonHtml, zipBombDocx } from "./hostile-documents.js";
import { fixture } from "./site-server.js";

const folder = mkdtempSync(join(tmpdir(), "parley-hostile-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const upload = (name: string, bytes: Buffer | string) => {
  const path = join(folder, `${Math.random().toString(36).slice(2)}.upload`);
  writeFileSync(path, bytes);
  return { name, path };
};
const read = async (files: { name: string; path: string }[], options: KnowledgeSourcesOptions = {}) => {
  const items: KnowledgeItem[] = [];
  const request: KnowledgeRequest = { kind: "files", files };
  for await (const item of createKnowledgeSources(options).read(request, { signal: new AbortController().signal })) items.push(item);
  return items;
};
const outcome = (item: KnowledgeItem) => ("error" in item ? { source: item.source, error: item.error } : { source: item.document.source, text: item.document.text });
const TOO_COMPLEX = "The document is too complex to read.";

describe("hostile documents (issue 24)", () => {
  it("each fails alone with its reason while the event loop stays free, and the request's other documents are read", async () => {
    const files = [
      upload("poison.html", poisonHtml()),
      upload("deep.html", deeplyNestedHtml()),
      upload("catalogue.pdf", manyPagePdf(5_000)),
      upload("bomb.docx", zipBombDocx(80 * 1024 * 1024)),
      upload("notes.txt", "The office opens at nine."),
    ];
    const watch = watchEventLoop();
    // The deep page would take minutes: a short deadline ends it sooner than the default.
    const items = await read(files, { documents: { timeoutMs: 5_000 } });
    const loop = watch.stop();
    expect(items.map(outcome)).toEqual([
      { source: "poison.html", error: TOO_COMPLEX },
      { source: "deep.html", error: TOO_COMPLEX },
      { source: "catalogue.pdf", error: "The PDF has 5,000 pages, more than the 2,000 a document may have; split it and add the parts." },
      { source: "bomb.docx", error: "The DOCX file unpacks to more than 64 MiB; it is refused." },
      { source: "notes.txt", text: "The office opens at nine." },
    ]);
    // Parsing is in child processes: the event loop of the caller (the server) never waits on it
    // (see event-loop-watch.ts for why the loop's own work, not the raw worst delay, is bounded).
    expect(loop.maxBusyMs).toBeLessThan(100);
    expect(loop.p99DelayMs).toBeLessThan(100);
  }, 120_000);

  it("ends a document at its wall-clock limit", async () => {
    const reader = createDocumentReader({ timeoutMs: 3_000 });
    await expect(reader.read({ bytes: deeplyNestedHtml(), name: "deep.html", source: "deep.html" })).rejects.toThrow(TOO_COMPLEX);
    // The worker was ended; the next document gets a fresh one and reads.
    expect((await reader.read({ bytes: Buffer.from("<p>Fine.</p>"), name: "fine.html", source: "fine.html" })).document.text).toBe("Fine.");
    await reader.close();
  }, 30_000);

  it("ends a document at its memory limit", async () => {
    const page = Buffer.from(`<html><body>${"<p>x y</p>".repeat(300_000)}`);
    const small = createDocumentReader({ memoryMb: 16 });
    await expect(small.read({ bytes: page, name: "big.html", source: "big.html" })).rejects.toThrow(TOO_COMPLEX);
    await small.close();
  }, 30_000);

  it("applies the configured PDF page limit, HTML size limit and DOCX unpacked limit", async () => {
    const items = await read(
      [upload("five.pdf", manyPagePdf(5)), upload("three.pdf", manyPagePdf(3)), upload("page.html", `<p>${"word ".repeat(400)}</p>`), upload("bomb.docx", zipBombDocx(2 * 1024 * 1024))],
      { documents: { limits: { maxPdfPages: 3, maxHtmlBytes: 1024, maxDocxUnpackedBytes: 1024 * 1024 } } },
    );
    expect(items.map(outcome)).toEqual([
      { source: "five.pdf", error: "The PDF has 5 pages, more than the 3 a document may have; split it and add the parts." },
      { source: "three.pdf", text: "Line of page 1.\n\nLine of page 2.\n\nLine of page 3." },
      { source: "page.html", error: "The HTML page is larger than 1 KiB; it is refused." },
      { source: "bomb.docx", error: "The DOCX file unpacks to more than 1 MiB; it is refused." },
    ]);
  }, 30_000);

  it("still reads a real DOCX, whose entries inflate within the limit", async () => {
    const [item] = await read([upload("handbook.docx", fixture("handbook.docx"))], { documents: { limits: { maxDocxUnpackedBytes: 1024 * 1024 } } });
    expect("document" in item!).toBe(true);
  }, 30_000);
});
