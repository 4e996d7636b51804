import type { DocumentToIndex, EmbeddingSpace, IndexedDocument, SearchIndex } from "@parley/core";
import { createManualClock, createMemorySearchIndex } from "@parley/core/memory";
import { describe, expect, it } from "vitest";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { useSearchDatabase } from "./test-search-database.js";

// The document catalog (listDocuments, getDocument, documentStats) has its contract cases
// (@parley/core/contract, search-index-documents-contract.ts); beyond them, one longer script
// runs on the memory index (the reference) and on PostgreSQL, and every read must agree.

const SPACE: EmbeddingSpace = { embedderId: "test-2", dimensions: 2 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";
const OTHER = "0b7e8d9c-1a2b-4c3d-8e4f-5a6b7c8d9e0f";

const usePool = useSearchDatabase().pool;

const document = (source: string, texts: string[], extra: Partial<DocumentToIndex> = {}): DocumentToIndex => ({
  source,
  title: `${source} title`,
  chunks: texts.map((text) => ({ text, embedding: Float32Array.from([1, 0]) })),
  ...extra,
});

async function script(index: SearchIndex, clock: ReturnType<typeof createManualClock>) {
  await index.replaceDocument(BOT, SPACE, document("a.md", ["one", "two"]));
  clock.advance(1_000);
  await index.replaceDocuments(BOT, SPACE, [document("b.pdf", ["three"], { documentTitle: "B", bytes: 12_345 }), document("c.html", ["four", "five", "six"]), document("\u0000odd", ["nul"])]);
  clock.advance(1_000);
  const before = await index.getDocument(BOT, { source: "a.md" });
  await index.replaceDocument(BOT, SPACE, document("a.md", ["one again"], { type: "text" })); // replaced: same id, same creation
  clock.advance(1_000);
  await index.deleteDocument(BOT, "c.html");
  await index.replaceDocument(OTHER, SPACE, document("x.md", ["other"]));
  const firstPage = await index.listDocuments(BOT, { limit: 2 });
  const last = firstPage.at(-1)!;
  const after = await index.getDocument(BOT, { source: "a.md" });
  const withoutId = ({ id: _id, ...rest }: IndexedDocument) => rest;
  return {
    keptId: before!.id === after!.id,
    firstPage: firstPage.map(withoutId),
    secondPage: (await index.listDocuments(BOT, { limit: 10, after: { at: last.updatedAt, id: last.id } })).map(withoutId),
    byId: withoutId((await index.getDocument(BOT, { id: after!.id }))!),
    foreignId: await index.getDocument(OTHER, { id: after!.id }),
    gone: await index.getDocument(BOT, { source: "c.html" }),
    stats: await index.documentStats(BOT),
    otherStats: await index.documentStats(OTHER),
    unknownStats: await index.documentStats("4d1e5a8b-0000-4000-8000-000000000000"),
  };
}

describe("the document catalog on PostgreSQL, against the memory index", () => {
  it("records, replaces (keeping id and creation), removes, pages and counts documents as the memory index does", async () => {
    const memoryClock = createManualClock();
    const postgresClock = createManualClock();
    const expected = await script(createMemorySearchIndex({ clock: memoryClock }), memoryClock);
    const actual = await script(createPostgresSearchIndex({ pool: usePool(), clock: postgresClock }), postgresClock);
    expect(expected.keptId).toBe(true);
    expect(expected.stats).toEqual({ documents: 3, chunks: 3 });
    expect(actual).toEqual(expected);
  });
});
