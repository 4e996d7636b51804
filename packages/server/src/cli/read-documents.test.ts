import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { htmlToText, readDocuments, toDocument } from "./read-documents.js";

const folder = mkdtempSync(join(tmpdir(), "parley-docs-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("readDocuments", () => {
  it("reads .txt, .md and .html files, recursing into folders in a stable order and passing over other files", async () => {
    mkdirSync(join(folder, "guide", "deep"), { recursive: true });
    writeFileSync(join(folder, "guide", "b.md"), "# Beta guide\n\nText B.");
    writeFileSync(join(folder, "guide", "a.txt"), "Plain A.");
    writeFileSync(join(folder, "guide", "deep", "c.html"), "<html><head><title>Gamma &amp; Co</title></head><body><p>C</p></body></html>");
    writeFileSync(join(folder, "guide", "image.png"), "not text");
    writeFileSync(join(folder, "guide", ".hidden.md"), "# hidden");
    const documents = await readDocuments([join(folder, "guide")]);
    expect(documents.map((document) => [document.source.slice(folder.length), document.title])).toEqual([
      ["/guide/a.txt", "a.txt"],
      ["/guide/b.md", "Beta guide"],
      ["/guide/deep/c.html", "Gamma & Co"],
    ]);
  });

  it("refuses a missing path and a named file of another type", async () => {
    await expect(readDocuments([join(folder, "nope")])).rejects.toThrow(/^No such file or folder: /);
    writeFileSync(join(folder, "data.csv"), "a,b");
    await expect(readDocuments([join(folder, "data.csv")])).rejects.toThrow("only .txt, .md, .html files are read");
  });
});

describe("htmlToText", () => {
  it("drops scripts, styles and tags, keeps blocks as paragraphs and decodes entities", () => {
    const html = `<html><head><style>p{color:red}</style><script>alert("x")</script></head>
      <body><h1>Returns</h1><p>Free within 30&nbsp;days &mdash; no questions.</p><ul><li>One</li><li>Two &#x263A;</li></ul></body></html>`;
    expect(htmlToText(html)).toBe("Returns\n\nFree within 30 days — no questions.\n\nOne\n\nTwo ☺");
  });

  it("titles an HTML page by its h1 when it has no title element", () => {
    expect(toDocument("/x/page.html", "<h1>Shipping <em>rates</em></h1><p>Body</p>").title).toBe("Shipping rates");
  });
});
