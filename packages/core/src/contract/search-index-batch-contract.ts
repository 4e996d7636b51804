import { expect } from "vitest";
import { isParleyError } from "../errors.js";
import type { DocumentToIndex, EmbeddingSpace, SearchIndex } from "../ports/search-index.js";

/** The contract cases of `replaceDocuments`, run inside the SearchIndex contract. */
export const BATCH_CASES = [
  "replaceDocuments replaces several sources at once in both arms",
  "replaceDocuments is all or nothing: a bad embedding in the last document changes nothing",
  "replaceDocuments given the same source twice keeps the last version",
] as const;

type Test = (name: (typeof BATCH_CASES)[number], body: (index: SearchIndex) => Promise<void>) => void;

const SPACE: EmbeddingSpace = { embedderId: "contract-4", dimensions: 4 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";

const document = (source: string, texts: string[], axis = 0): DocumentToIndex => ({
  source,
  title: source,
  chunks: texts.map((text) => ({ text, embedding: Float32Array.from([0, 1, 2, 3].map((position) => (position === axis ? 1 : 0))) })),
});
const sortedTexts = async (index: SearchIndex) => (await index.listChunks(BOT, { limit: 100 })).map((chunk) => `${chunk.source}: ${chunk.text}`).sort();

/** Defines the batch cases with the contract's `test`, which gives each a fresh index. */
export function defineBatchCases(test: Test): void {
  test("replaceDocuments replaces several sources at once in both arms", async (index) => {
    await index.replaceDocument(BOT, SPACE, document("old.md", ["walrus tusks"], 3));
    await index.replaceDocument(BOT, SPACE, document("a.md", ["stale penguin"], 3));
    // Searched first, so an adapter's cached postings and vectors must follow the batch.
    expect((await index.keywordSearch(BOT, "stale penguin", 5)).map((hit) => hit.source)).toEqual(["a.md"]);
    expect(await index.vectorSearch(BOT, SPACE, Float32Array.from([0, 0, 0, 1]), 5)).toHaveLength(2);
    const result = await index.replaceDocuments(BOT, SPACE, [
      document("a.md", ["alpha penguin", "alpha puffin"], 0),
      document("b.md", ["bravo heron"], 1),
      document("old.md", []),
    ]);
    expect(result).toEqual({ chunks: 3 });
    expect(await sortedTexts(index)).toEqual(["a.md: alpha penguin", "a.md: alpha puffin", "b.md: bravo heron"]);
    expect((await index.keywordSearch(BOT, "heron", 5)).map((hit) => hit.source)).toEqual(["b.md"]);
    expect(await index.keywordSearch(BOT, "stale walrus", 5)).toEqual([]);
    const nearest = await index.vectorSearch(BOT, SPACE, Float32Array.from([0, 1, 0, 0]), 1);
    expect(nearest.map((hit) => hit.text)).toEqual(["bravo heron"]);
    expect(await index.replaceDocuments(BOT, SPACE, [])).toEqual({ chunks: 0 });
  });

  test("replaceDocuments is all or nothing: a bad embedding in the last document changes nothing", async (index) => {
    await index.replaceDocument(BOT, SPACE, document("a.md", ["alpha penguin"], 0));
    const before = await sortedTexts(index);
    const wrongLength = { ...document("c.md", ["charlie"]), chunks: [{ text: "charlie", embedding: new Float32Array(3).fill(0.5) }] };
    const error = await index
      .replaceDocuments(BOT, SPACE, [document("a.md", ["alpha replaced"], 1), document("b.md", ["bravo heron"], 1), wrongLength])
      .then(() => null, (caught: unknown) => caught);
    expect(isParleyError(error)).toBe(true);
    expect(await sortedTexts(index)).toEqual(before);
    expect(await index.keywordSearch(BOT, "replaced heron charlie", 5)).toEqual([]);
    expect((await index.vectorSearch(BOT, SPACE, Float32Array.from([1, 0, 0, 0]), 5)).map((hit) => hit.text)).toEqual(["alpha penguin"]);
    // Nor does a batch in another space leave anything behind.
    const mismatch = await index
      .replaceDocuments(BOT, { embedderId: "another", dimensions: 4 }, [document("b.md", ["bravo heron"])])
      .then(() => null, (caught: unknown) => caught);
    expect(isParleyError(mismatch, "embedder_mismatch")).toBe(true);
    expect(await sortedTexts(index)).toEqual(before);
  });

  test("replaceDocuments given the same source twice keeps the last version", async (index) => {
    const result = await index.replaceDocuments(BOT, SPACE, [document("a.md", ["first draft", "more draft"], 0), document("a.md", ["final copy"], 2)]);
    // The count is of the chunks given, as each replaceDocument would have reported them.
    expect(result).toEqual({ chunks: 3 });
    expect(await sortedTexts(index)).toEqual(["a.md: final copy"]);
    expect(await index.keywordSearch(BOT, "draft", 5)).toEqual([]);
    expect((await index.vectorSearch(BOT, SPACE, Float32Array.from([1, 0, 0, 0]), 5)).map((hit) => hit.text)).toEqual(["final copy"]);
  });
}
