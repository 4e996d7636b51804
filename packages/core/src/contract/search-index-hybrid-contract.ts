import { expect } from "vitest";
import { isParleyError } from "../errors.js";
import type { EmbeddingSpace, HybridQuery, SearchHit, SearchIndex } from "../ports/search-index.js";

/** The contract cases of `hybridSearch`, run inside the SearchIndex contract. */
export const HYBRID_CASES = [
  "hybridSearch finds what keywordSearch and vectorSearch find, with the documents",
  "hybridSearch of a chatbot without documents embeds nothing and finds nothing",
  "hybridSearch refuses an embedder of another space before embedding, and follows a reindex",
] as const;

type Test = (name: (typeof HYBRID_CASES)[number], body: (index: SearchIndex) => Promise<void>) => void;

const SPACE: EmbeddingSpace = { embedderId: "contract-4", dimensions: 4 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";

/** An embedder of `space` that always gives `vector`, counting its calls. */
function fixedEmbedder(space: EmbeddingSpace, vector: number[]) {
  const embedder = { id: space.embedderId, dimensions: space.dimensions, calls: 0, embed: async (texts: string[]) => ((embedder.calls += 1), texts.map(() => Float32Array.from(vector))) };
  return embedder;
}

const query = (text: string, embedder: HybridQuery["embedder"]): HybridQuery => ({ text, keywordK: 10, vectorK: 10, embedder });
/** Hits to compare across operations: scores rounded, documents left out (an index may read them with one operation only). */
const comparable = (hits: SearchHit[]) => hits.map(({ chunkId, source, title, text, score }) => ({ chunkId, source, title, text, score: Math.round(score * 1e4) / 1e4 }));

async function seed(index: SearchIndex, space = SPACE) {
  const chunk = (text: string, axis: number) => ({ text, embedding: Float32Array.from([0, 1, 2, 3].map((position) => (position === axis ? 1 : 0))).subarray(0, space.dimensions) });
  await index.replaceDocument(BOT, space, { source: "kettle.md", title: "Kettle", chunks: [chunk("Descale the kettle every month.", 0), chunk("The warranty lasts two years.", 1)] });
  await index.replaceDocument(BOT, space, { source: "toaster.md", title: "Toaster", chunks: [chunk("Empty the toaster's crumb tray weekly.", 2)] });
}

/** Defines the hybrid cases with the contract's `test`, which gives each a fresh index. */
export function defineHybridCases(test: Test): void {
  test("hybridSearch finds what keywordSearch and vectorSearch find, with the documents", async (index) => {
    await seed(index);
    const embedder = fixedEmbedder(SPACE, [0, 0.6, 0.8, 0]);
    for (let round = 0; round < 2; round += 1) {
      const found = await index.hybridSearch(BOT, query("kettle warranty", embedder));
      expect(found).not.toBeNull();
      expect(comparable(found!.keyword)).toEqual(comparable(await index.keywordSearch(BOT, "kettle warranty", 10)));
      expect(comparable(found!.vector)).toEqual(comparable(await index.vectorSearch(BOT, SPACE, Float32Array.from([0, 0.6, 0.8, 0]), 10)));
      expect(found!.vector.map((hit) => hit.source)).toEqual(["toaster.md", "kettle.md", "kettle.md"]);
      expect(found!.keyword[0]!.source).toBe("kettle.md");
      const documents = await index.listDocuments(BOT, { limit: 10 });
      for (const hit of [...found!.keyword, ...found!.vector]) {
        if (hit.document !== undefined) expect(documents.map(({ id, title, type }) => ({ id, title, type }))).toContainEqual(hit.document);
      }
    }
    expect(embedder.calls).toBe(2);
    // A query with no words has no keyword arm; a new document is found at once.
    await index.replaceDocument(BOT, SPACE, { source: "iron.md", title: "Iron", chunks: [{ text: "Iron on low heat.", embedding: Float32Array.from([0, 0, 1, 0]) }] });
    const found = await index.hybridSearch(BOT, query(" ;; ", embedder));
    expect(found!.keyword).toEqual([]);
    expect(found!.vector.map((hit) => hit.source).slice(0, 2).sort()).toEqual(["iron.md", "toaster.md"]);
  });

  test("hybridSearch of a chatbot without documents embeds nothing and finds nothing", async (index) => {
    const embedder = fixedEmbedder(SPACE, [1, 0, 0, 0]);
    expect(await index.hybridSearch(BOT, query("kettle", embedder))).toBeNull();
    expect(embedder.calls).toBe(0);
  });

  test("hybridSearch refuses an embedder of another space before embedding, and follows a reindex", async (index) => {
    await seed(index);
    const embedder = fixedEmbedder(SPACE, [1, 0, 0, 0]);
    expect((await index.hybridSearch(BOT, query("kettle", embedder)))!.vector).toHaveLength(3);
    const other = fixedEmbedder({ embedderId: "contract-other-2", dimensions: 2 }, [1, 0]);
    const refused = await index.hybridSearch(BOT, query("kettle", other)).then(() => null, (caught: unknown) => caught);
    expect(isParleyError(refused, "embedder_mismatch")).toBe(true);
    expect((refused as Error).message).toBe(`Chatbot ${BOT} is indexed with embedder contract-4, but the configured embedder is contract-other-2. Reindex the chatbot.`);
    expect(other.calls).toBe(0);
    // Reindexed into the other space: that embedder is served, the old one refused.
    const chunks = await index.listChunks(BOT, { limit: 10 });
    await index.replaceEmbeddings(BOT, { embedderId: other.id, dimensions: 2 }, chunks.map(({ chunkId }, position) => ({ chunkId, embedding: Float32Array.from(position === 0 ? [1, 0] : [0, 1]) })), { reset: true });
    expect((await index.hybridSearch(BOT, query("kettle", other)))!.vector[0]!.chunkId).toBe(chunks[0]!.chunkId);
    expect(isParleyError(await index.hybridSearch(BOT, query("kettle", embedder)).then(() => null, (caught: unknown) => caught), "embedder_mismatch")).toBe(true);
  });
}
