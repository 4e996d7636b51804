import type { KnowledgeItem, KnowledgeRequest } from "@parley/core";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKnowledgeSources } from "../src/index.js";
import { zipBombDocx } from "./hostile-documents.js";
import { fixture } from "./site-server.js";

const folder = mkdtempSync(join(tmpdir(), "parley-knowledge-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Writes `bytes` under a temporary name, as the server writes an upload, and returns the file entry. */
const upload = (name: string, bytes: Buffer | string) => {
  const path = join(folder, `${Math.random().toString(36).slice(2)}.upload`);
  writeFileSync(path, bytes);
  return { name, path };
};
const read = async (files: { name: string; path: string }[], options = {}) => {
  const items: KnowledgeItem[] = [];
  const request: KnowledgeRequest = { kind: "files", files };
  for await (const item of createKnowledgeSources(options).read(request, { signal: new AbortController().signal })) items.push(item);
  return items;
};
const documentOf = (item: KnowledgeItem | undefined) => {
  if (!item || "error" in item) throw new Error(`expected a document, got ${JSON.stringify(item)}`);
  return item;
};

describe("PDF", () => {
  it("reads every page in order, one labelled section per page, the fact of page 3 only there", async () => {
    const item = documentOf((await read([upload("Manual.pdf", fixture("manual.pdf"))]))[0]);
    expect(item.type).toBe("pdf");
    expect(item.bytes).toBe(fixture("manual.pdf").length);
    expect(item.document.title).toBe("Manual.pdf");
    expect(item.document.source).toBe("Manual.pdf");
    const sections = item.document.sections ?? [];
    expect(sections.map((section) => section.label)).toEqual(["page 1", "page 2", "page 3", "page 4"]);
    expect(sections[0]!.text).toBe(
      "Acme K2 Kettle Manual\n\nThank you for choosing the Acme K2 kettle. This manual explains how to unpack, fill, clean and look after it.\n\n" +
        "Remove the kettle and its power base from the box. Keep the packaging until you are sure the kettle works.",
    );
    expect(sections[2]!.text).toBe(
      "Cleaning and warranty. Descale the kettle with citric acid every 45 days in hard-water areas.\n\n" +
        "The heating element carries a seven-year warranty under reference ZEPHYR-7; keep your receipt to claim it.",
    );
    expect(sections.filter((section) => section.text.includes("ZEPHYR-7")).map((section) => section.label)).toEqual(["page 3"]);
  });

  it("reads a PDF that opens without a password but forbids copying, as PDF readers do", async () => {
    const item = documentOf((await read([upload("restricted.pdf", fixture("restricted.pdf"))]))[0]);
    expect(item.document.sections?.map((section) => section.label)).toEqual(["page 1", "page 2", "page 3", "page 4"]);
  });

  it("reports an encrypted, a scanned (no text layer) and a damaged PDF per document, and goes on", async () => {
    const items = await read([
      upload("locked.pdf", fixture("encrypted.pdf")),
      upload("scan.pdf", fixture("scanned.pdf")),
      upload("broken.pdf", fixture("corrupt.pdf")),
      upload("Manual.pdf", fixture("manual.pdf")),
    ]);
    expect(items.slice(0, 3)).toEqual([
      { source: "locked.pdf", error: "The PDF is encrypted with a password; add a copy without the password." },
      { source: "scan.pdf", error: "The PDF has no text layer (scanned pages?); run it through OCR and add it again." },
      { source: "broken.pdf", error: "The PDF is damaged and could not be read." },
    ]);
    expect(documentOf(items[3]).document.title).toBe("Manual.pdf");
  });
});

describe("DOCX", () => {
  it("reads headings as section labels, paragraphs, a list and a table as text", async () => {
    const item = documentOf((await read([upload("Handbook.docx", fixture("handbook.docx"))]))[0]);
    expect(item.type).toBe("docx");
    expect(item.document.title).toBe("Handbook.docx");
    expect(item.document.sections).toEqual([
      { label: "Support Handbook", text: "This handbook tells customers how to reach Acme support and what to expect." },
      { label: "Opening hours", text: "The support desk is open Monday to Friday, from 8:00 to 18:00 UK time." },
      { label: "Before you call", text: "- Have your order number ready.\n- Note the model printed under the power base.\n- Unplug the appliance before inspecting it." },
      {
        label: "Support plans",
        text: "Plan | Response time | Phone line\nStandard | 2 working days | none, email only\nPlatinum | 15 minutes | +44 20 7946 0321, code QUASAR-12",
      },
      { label: "Returns", text: "Unused appliances may be returned within 30 days for a full refund." },
    ]);
  });

  it("refuses a DOCX that really unpacks past the limit though its headers declare 1,000 bytes (a zip bomb)", async () => {
    // Today's reader trusted the declared sizes and inflated it all (issue 24's patched-header bomb).
    const items = await read([upload("bomb.docx", zipBombDocx(80 * 1024 * 1024))]);
    expect(items).toEqual([{ source: "bomb.docx", error: "The DOCX file unpacks to more than 64 MiB; it is refused." }]);
  });

  it("reports a damaged DOCX", async () => {
    const broken = Buffer.concat([fixture("handbook.docx").subarray(0, 2000)]);
    expect(await read([upload("broken.docx", broken)])).toEqual([{ source: "broken.docx", error: "The DOCX file is damaged and could not be read." }]);
  });
});

describe("HTML, Markdown and text", () => {
  it("reads an HTML file's main content and title, and Markdown and text as they are", async () => {
    const html = `<!DOCTYPE html><html><head><title>Prices</title><style>p{}</style></head><body><nav>Menu NAV</nav><h1>Prices</h1><p>The kettle costs 40 pounds.</p><footer>FOOT</footer></body></html>`;
    const items = await read([upload("prices.html", html), upload("faq.md", "# Kettle FAQ\n\nIt boils.\n"), upload("notes.txt", "Plain notes.\r\nSecond line.")]);
    expect(items.map((item) => documentOf(item)).map(({ document, type }) => ({ type, title: document.title, text: document.text, sections: document.sections }))).toEqual([
      // Readability drops the <h1> that repeats the title.
      { type: "html", title: "Prices", text: "The kettle costs 40 pounds.", sections: [{ text: "The kettle costs 40 pounds." }] },
      { type: "markdown", title: "Kettle FAQ", text: "# Kettle FAQ\n\nIt boils.", sections: undefined },
      { type: "text", title: "notes.txt", text: "Plain notes.\nSecond line.", sections: undefined },
    ]);
  });
});

describe("encodings", () => {
  it("decodes a page in the charset it declares, and a text file that is not UTF-8 as Windows-1252", async () => {
    const latin1 = Buffer.from('<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e, 4 \u00a3.</p></body></html>', "latin1");
    // Windows-1252 curly quotes are 0x93 and 0x94, bytes that are never valid UTF-8 on their own.
    const legacy = Buffer.concat([Buffer.from("Na\u00efve r\u00e9sum\u00e9 ", "latin1"), Buffer.from([0x93]), Buffer.from("quoted"), Buffer.from([0x94])]);
    const items = await read([upload("cafe.html", latin1), upload("notes.txt", legacy)]);
    expect(items.map((item) => documentOf(item).document.text)).toEqual(["Cr\u00e8me br\u00fbl\u00e9e, 4 \u00a3.", "Na\u00efve r\u00e9sum\u00e9 \u201cquoted\u201d"]);
    expect(documentOf(items[0]).document.title).toBe("Caf\u00e9");
  });
});

describe("types by content", () => {
  it("reads a PDF named .txt as a PDF and HTML named .pdf as HTML", async () => {
    const items = await read([upload("renamed.txt", fixture("manual.pdf")), upload("page.pdf", "<!doctype html><title>T</title><p>Hello from HTML.</p>")]);
    expect(items.map((item) => documentOf(item).type)).toEqual(["pdf", "html"]);
  });

  it("refuses binary data, a ZIP that is not a DOCX, a legacy .doc, an empty file, a missing file and one over the limit", async () => {
    const items = await read(
      [
        upload("tool.txt", Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00])),
        upload("archive.docx", Buffer.concat([Buffer.from("PK\u0003\u0004"), Buffer.from("images/photo.png")])),
        upload("old.doc", Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])),
        upload("empty.txt", "  \n "),
        { name: "gone.pdf", path: join(folder, "does-not-exist") },
        upload("big.txt", "x".repeat(2048)),
      ],
      { maxFileBytes: 1024 },
    );
    expect(items).toEqual([
      { source: "tool.txt", error: "Unsupported file type: binary data that is not PDF or DOCX. Parley reads PDF, DOCX, HTML, Markdown and plain text." },
      { source: "archive.docx", error: "Unsupported file type: a ZIP archive that is not a DOCX document. Parley reads PDF, DOCX, HTML, Markdown and plain text." },
      { source: "old.doc", error: "Unsupported file type: a legacy Office file (.doc); save it as .docx or PDF. Parley reads PDF, DOCX, HTML, Markdown and plain text." },
      { source: "empty.txt", error: "The document has no text." },
      { source: "gone.pdf", error: "The file could not be read." },
      { source: "big.txt", error: "The file is larger than 1 KiB." },
    ]);
  });

  it("estimates a files request by its count, a page as one, and a crawl as unknown", () => {
    const sources = createKnowledgeSources();
    expect(sources.estimate({ kind: "files", files: [upload("a.txt", "a"), upload("b.txt", "b")] })).toBe(2);
    expect(sources.estimate({ kind: "url", url: "https://acme.test/", crawl: "page", maxPages: 50 })).toBe(1);
    expect(sources.estimate({ kind: "url", url: "https://acme.test/", crawl: "site", maxPages: 50 })).toBeNull();
  });
});
