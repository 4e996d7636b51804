import { expect } from "vitest";
import type { DocumentToIndex, EmbeddingSpace, SearchIndex } from "../ports/search-index.js";

/** The contract cases of the document catalog, run inside the SearchIndex contract. */
export const DOCUMENT_CASES = [
  "a document is listed with its title, type, size and chunk count once indexed",
  "indexing a source again keeps its id and creation time, and moves it to the top",
  "deleting a document or giving it no chunks removes it from the catalog",
  "listDocuments pages newest first after a position, per chatbot",
] as const;

type Test = (name: (typeof DOCUMENT_CASES)[number], body: (index: SearchIndex) => Promise<void>) => void;

const SPACE: EmbeddingSpace = { embedderId: "contract-4", dimensions: 4 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";
const OTHER_BOT = "0b7e8d9c-1a2b-4c3d-8e4f-5a6b7c8d9e0f";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const document = (source: string, texts: string[], extra: Partial<DocumentToIndex> = {}): DocumentToIndex => ({
  source,
  title: source,
  chunks: texts.map((text) => ({ text, embedding: Float32Array.from([1, 0, 0, 0]) })),
  ...extra,
});

/** Waits until the index's clock has moved on, so update times differ (adapters stamp with their own clock). */
const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

/** Defines the document cases with the contract's `test`, which gives each a fresh index. */
export function defineDocumentCases(test: Test): void {
  test("a document is listed with its title, type, size and chunk count once indexed", async (index) => {
    expect(await index.listDocuments(BOT, { limit: 10 })).toEqual([]);
    expect(await index.documentStats(BOT)).toEqual({ documents: 0, chunks: 0 });
    await index.replaceDocument(BOT, SPACE, document("manual.pdf", ["Page one text.", "Page two: é"], { documentTitle: "Manual", title: "Manual — page 1", type: "pdf", bytes: 2048 }));
    await index.replaceDocument(BOT, SPACE, document("notes.md", ["ab", "cé"]));
    const [notes, manual] = await index.listDocuments(BOT, { limit: 10 });
    expect(manual).toMatchObject({ chatbotId: BOT, source: "manual.pdf", title: "Manual", type: "pdf", chunks: 2, bytes: 2048 });
    // Without a type or a size: the type from the extension, the size of the chunks' UTF-8 text.
    expect(notes).toMatchObject({ source: "notes.md", title: "notes.md", type: "markdown", chunks: 2, bytes: 5 });
    expect(manual!.id).toMatch(UUID);
    expect(manual!.updatedAt).toBe(manual!.createdAt);
    expect(await index.getDocument(BOT, { id: manual!.id })).toEqual(manual);
    expect(await index.getDocument(BOT, { source: "notes.md" })).toEqual(notes);
    expect(await index.getDocument(OTHER_BOT, { id: manual!.id })).toBeNull();
    expect(await index.documentStats(BOT)).toEqual({ documents: 2, chunks: 4 });
  });

  test("indexing a source again keeps its id and creation time, and moves it to the top", async (index) => {
    await index.replaceDocument(BOT, SPACE, document("a.md", ["one"]));
    await tick();
    await index.replaceDocument(BOT, SPACE, document("b.md", ["two"]));
    const first = (await index.getDocument(BOT, { source: "a.md" }))!;
    await tick();
    await index.replaceDocuments(BOT, SPACE, [document("a.md", ["one", "again", "more"], { title: "A, second edition" })]);
    const again = (await index.getDocument(BOT, { source: "a.md" }))!;
    expect(again).toMatchObject({ id: first.id, createdAt: first.createdAt, title: "A, second edition", chunks: 3 });
    expect(again.updatedAt).toBeGreaterThan(first.updatedAt);
    expect((await index.listDocuments(BOT, { limit: 10 })).map((listed) => listed.source)).toEqual(["a.md", "b.md"]);
    expect(await index.documentStats(BOT)).toEqual({ documents: 2, chunks: 4 });
  });

  test("deleting a document or giving it no chunks removes it from the catalog", async (index) => {
    await index.replaceDocuments(BOT, SPACE, [document("a.md", ["one"]), document("b.md", ["two"]), document("c.md", ["three"])]);
    expect(await index.deleteDocument(BOT, "a.md")).toBe(true);
    await index.replaceDocument(BOT, SPACE, document("b.md", []));
    expect((await index.listDocuments(BOT, { limit: 10 })).map((listed) => listed.source)).toEqual(["c.md"]);
    expect(await index.getDocument(BOT, { source: "a.md" })).toBeNull();
    expect(await index.documentStats(BOT)).toEqual({ documents: 1, chunks: 1 });
  });

  test("listDocuments pages newest first after a position, per chatbot", async (index) => {
    for (const source of ["a.md", "b.md", "c.md", "d.md"]) {
      await index.replaceDocument(BOT, SPACE, document(source, [source]));
      await tick();
    }
    await index.replaceDocument(OTHER_BOT, SPACE, document("other.md", ["other"]));
    const page = await index.listDocuments(BOT, { limit: 2 });
    expect(page.map((listed) => listed.source)).toEqual(["d.md", "c.md"]);
    const last = page.at(-1)!;
    const next = await index.listDocuments(BOT, { limit: 10, after: { at: last.updatedAt, id: last.id } });
    expect(next.map((listed) => listed.source)).toEqual(["b.md", "a.md"]);
    expect((await index.listDocuments(OTHER_BOT, { limit: 10 })).map((listed) => listed.source)).toEqual(["other.md"]);
  });
}
