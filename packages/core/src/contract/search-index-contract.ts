import { describe, expect, it } from "vitest";
import { isParleyError } from "../errors.js";
import type { EmbeddingSpace, SearchIndex } from "../ports/search-index.js";
import { BATCH_CASES, defineBatchCases } from "./search-index-batch-contract.js";
import { defineDocumentCases, DOCUMENT_CASES } from "./search-index-documents-contract.js";
import { defineHybridCases, HYBRID_CASES } from "./search-index-hybrid-contract.js";
import { skipper, type SkippedCase } from "./skip.js";

/** How to run the SearchIndex contract against one adapter. */
export interface SearchIndexContractOptions {
  /** A fresh, empty index for each test. */
  create: () => SearchIndex | Promise<SearchIndex>;
  /** Called after each test with the index it used (close a database, remove a file). */
  dispose?: (index: SearchIndex) => void | Promise<void>;
  /** Tests this adapter does not pass yet, each with the reason. */
  skip?: SkippedCase[];
}

const SPACE: EmbeddingSpace = { embedderId: "contract-4", dimensions: 4 };
const OTHER_SPACE: EmbeddingSpace = { embedderId: "contract-other-4", dimensions: 4 };
const BOT = "6f1c2a52-8a3e-4e0b-9d0c-1f2a3b4c5d6e";
const OTHER_BOT = "0b7e8d9c-1a2b-4c3d-8e4f-5a6b7c8d9e0f";

const vector = (...values: number[]) => {
  const result = Float32Array.from(values);
  const norm = Math.hypot(...values) || 1;
  return result.map((value) => value / norm);
};
const chunk = (text: string, ...values: number[]) => ({ text, embedding: vector(...values) });

/** A small knowledge base whose keyword and vector rankings are known by construction. */
async function seed(index: SearchIndex, chatbotId = BOT) {
  await index.replaceDocument(chatbotId, SPACE, {
    source: "refunds.md",
    title: "Refund policy",
    chunks: [chunk("Refunds are paid within 14 days of a return.", 1, 0, 0, 0), chunk("Shipping costs are not refunded.", 0.8, 0.2, 0, 0)],
  });
  await index.replaceDocument(chatbotId, SPACE, {
    source: "shipping.md",
    title: "Shipping",
    chunks: [chunk("We ship to every country in Europe by courier.", 0, 1, 0, 0)],
  });
  await index.replaceDocument(chatbotId, SPACE, {
    source: "hours.md",
    title: "Opening hours",
    chunks: [chunk("The shop opens at nine and closes at six; refund desk at the back.", 0, 0, 1, 0)],
  });
}

const CASES = [
  "an empty index finds nothing and has no embedding space",
  "keyword search ranks by BM25 with the title weighing more than the body",
  "keyword search stems words (refunds finds refunded)",
  "keyword search drops stopwords unless the query has nothing else",
  "vector search ranks by cosine similarity, best first",
  "the first document fixes the embedding space; another space is refused",
  "an embedding of the wrong length or with NaN is refused and changes nothing",
  "replacing a document replaces its chunks in both arms",
  "replacing a document with no chunks removes it",
  "deleting a document removes it from both arms and reports whether it existed",
  "chatbots are isolated from each other",
  "a chatbot's keyword scores use its own statistics, whatever other chatbots hold",
  "hostile keyword queries return results or nothing and never throw",
  "stores text with NUL bytes, emoji and quotes as given",
  "listChunks pages through every chunk in a stable order",
  "replaceEmbeddings with reset moves the chatbot to a new space",
  "replaceEmbeddings refuses a chunk of another chatbot and changes nothing",
  ...BATCH_CASES,
  ...DOCUMENT_CASES,
  ...HYBRID_CASES,
] as const;

const HOSTILE_QUERIES = [
  "",
  "   \t\n ",
  '"',
  '"refund',
  "refund*",
  "*",
  "NEAR(refund shipping",
  "NEAR(refund, 2)",
  "refund AND OR NOT shipping",
  "AND",
  "OR NOT",
  "title:refund",
  "{title body}: refund",
  "refund^2 -shipping +europe",
  "(((refund",
  "'; DROP TABLE chunks; --",
  "1=1' OR '1'='1",
  "refund\u0000policy",
  "\u0000",
  "💸 refund 🚚",
  "🙂🙂🙂",
  "ｒｅｆｕｎｄ", // full-width letters
  "Rückerstattung für Versand",
  "退款政策",
  "refund ".repeat(2_858) + "x", // about 20,000 characters
  "a".repeat(20_000),
  Array.from({ length: 3_000 }, (_, index) => `w${index}`).join(" "),
];

/**
 * The behaviour every SearchIndex adapter must show. Call it from the adapter's test file:
 * `runSearchIndexContract({ create: () => createXSearchIndex(...) })`.
 */
export function runSearchIndexContract(options: SearchIndexContractOptions): void {
  const skipped = skipper("SearchIndex contract", CASES, options.skip);
  const test = (name: (typeof CASES)[number], body: (index: SearchIndex) => Promise<void>) => {
    (skipped(name) ? it.skip : it)(name, async () => {
      const index = await options.create();
      try {
        await body(index);
      } finally {
        await options.dispose?.(index);
      }
    });
  };
  const sources = (hits: { source: string }[]) => hits.map((hit) => hit.source);

  describe("SearchIndex contract", () => {
    test("an empty index finds nothing and has no embedding space", async (index) => {
      expect(await index.keywordSearch(BOT, "refund", 5)).toEqual([]);
      expect(await index.vectorSearch(BOT, SPACE, vector(1, 0, 0, 0), 5)).toEqual([]);
      expect(await index.embeddingSpace(BOT)).toBeNull();
      expect(await index.listChunks(BOT, { limit: 10 })).toEqual([]);
    });

    test("keyword search ranks by BM25 with the title weighing more than the body", async (index) => {
      await seed(index);
      const hits = await index.keywordSearch(BOT, "refund", 10);
      // Both refund.md chunks carry "refund" in the title; hours.md only once in its body.
      expect(sources(hits)).toEqual(["refunds.md", "refunds.md", "hours.md"]);
      expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
      expect(hits[1]!.score).toBeGreaterThan(hits[2]!.score);
      expect(hits[0]!.title).toBe("Refund policy");
      expect(sources(await index.keywordSearch(BOT, "courier europe", 10))).toEqual(["shipping.md"]);
      expect(await index.keywordSearch(BOT, "refund", 1)).toHaveLength(1);
    });

    test("keyword search stems words (refunds finds refunded)", async (index) => {
      await seed(index);
      const hits = await index.keywordSearch(BOT, "REFUNDED shipping", 10);
      expect(hits.map((hit) => hit.text)).toContain("Shipping costs are not refunded.");
    });

    test("keyword search drops stopwords unless the query has nothing else", async (index) => {
      await seed(index);
      const plain = await index.keywordSearch(BOT, "courier europe", 10);
      const padded = await index.keywordSearch(BOT, "What is the courier to Europe they are", 10);
      expect(padded.map((hit) => [hit.chunkId, hit.score])).toEqual(plain.map((hit) => [hit.chunkId, hit.score]));
      await index.replaceDocument(BOT, SPACE, { source: "about.md", title: "About", chunks: [chunk("Who are you? We are the shop.", 0, 0, 0, 1)] });
      expect(sources(await index.keywordSearch(BOT, "who are you", 10))[0]).toBe("about.md"); // the only chunk with all three
    });

    test("vector search ranks by cosine similarity, best first", async (index) => {
      await seed(index);
      const hits = await index.vectorSearch(BOT, SPACE, vector(0.9, 0.1, 0, 0), 3);
      expect(hits.map((hit) => hit.text)).toEqual([
        "Refunds are paid within 14 days of a return.",
        "Shipping costs are not refunded.",
        "We ship to every country in Europe by courier.",
      ]);
      expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
      expect(hits[0]!.score).toBeCloseTo(0.9939, 3);
      expect(await index.vectorSearch(BOT, SPACE, vector(0, 0, 0, 1), 10)).toHaveLength(4);
    });

    test("the first document fixes the embedding space; another space is refused", async (index) => {
      await seed(index);
      expect(await index.embeddingSpace(BOT)).toEqual(SPACE);
      const refused = async (promise: Promise<unknown>) => {
        const error = await promise.then(() => null, (caught: unknown) => caught);
        expect(isParleyError(error, "embedder_mismatch")).toBe(true);
      };
      await refused(index.replaceDocument(BOT, OTHER_SPACE, { source: "x.md", title: "X", chunks: [chunk("x", 1, 0, 0, 0)] }));
      await refused(index.replaceDocument(BOT, { embedderId: SPACE.embedderId, dimensions: 8 }, {
        source: "x.md", title: "X", chunks: [{ text: "x", embedding: new Float32Array(8).fill(0.25) }],
      }));
      await refused(index.vectorSearch(BOT, OTHER_SPACE, vector(1, 0, 0, 0), 3));
      expect(sources(await index.keywordSearch(BOT, "x", 5))).toEqual([]);
      // A refused write changed nothing.
      expect(await index.listChunks(BOT, { limit: 10 })).toHaveLength(4);
    });

    test("an embedding of the wrong length or with NaN is refused and changes nothing", async (index) => {
      await seed(index);
      const bad = [new Float32Array(3).fill(0.5), Float32Array.from([Number.NaN, 0, 0, 1])];
      for (const embedding of bad) {
        const error = await index
          .replaceDocument(BOT, SPACE, { source: "refunds.md", title: "Refund policy", chunks: [chunk("ok", 1, 0, 0, 0), { text: "bad", embedding }] })
          .then(() => null, (caught: unknown) => caught);
        expect(isParleyError(error)).toBe(true);
      }
      expect((await index.keywordSearch(BOT, "refund", 10)).length).toBe(3);
    });

    test("replacing a document replaces its chunks in both arms", async (index) => {
      await seed(index);
      const result = await index.replaceDocument(BOT, SPACE, {
        source: "refunds.md",
        title: "Returns",
        chunks: [chunk("Returns are accepted for thirty days.", 0, 0, 0, 1)],
      });
      expect(result).toEqual({ chunks: 1 });
      expect((await index.keywordSearch(BOT, "refunds paid 14", 10)).map((hit) => hit.source)).not.toContain("refunds.md");
      expect((await index.keywordSearch(BOT, "thirty", 10)).map((hit) => hit.title)).toEqual(["Returns"]);
      const nearest = await index.vectorSearch(BOT, SPACE, vector(1, 0, 0, 0), 10);
      expect(nearest.filter((hit) => hit.source === "refunds.md").map((hit) => hit.text)).toEqual(["Returns are accepted for thirty days."]);
      expect(nearest).toHaveLength(3);
      expect(await index.listChunks(BOT, { limit: 10 })).toHaveLength(3);
    });

    test("replacing a document with no chunks removes it", async (index) => {
      await seed(index);
      expect(await index.replaceDocument(BOT, SPACE, { source: "shipping.md", title: "Shipping", chunks: [] })).toEqual({ chunks: 0 });
      expect(await index.keywordSearch(BOT, "courier", 10)).toEqual([]);
    });

    test("deleting a document removes it from both arms and reports whether it existed", async (index) => {
      await seed(index);
      expect(await index.deleteDocument(BOT, "refunds.md")).toBe(true);
      expect(await index.deleteDocument(BOT, "refunds.md")).toBe(false);
      expect(await index.deleteDocument(BOT, "never.md")).toBe(false);
      expect(sources(await index.keywordSearch(BOT, "refund", 10))).toEqual(["hours.md"]);
      expect(sources(await index.vectorSearch(BOT, SPACE, vector(1, 0, 0, 0), 10)).sort()).toEqual(["hours.md", "shipping.md"]);
    });

    test("chatbots are isolated from each other", async (index) => {
      await seed(index, BOT);
      await index.replaceDocument(OTHER_BOT, OTHER_SPACE, {
        source: "refunds.md",
        title: "Other bot refund rules",
        chunks: [chunk("Refund refund refund, other chatbot.", 1, 0, 0, 0)],
      });
      expect(await index.embeddingSpace(OTHER_BOT)).toEqual(OTHER_SPACE);
      expect(await index.embeddingSpace(BOT)).toEqual(SPACE);
      const mine = await index.keywordSearch(BOT, "refund other chatbot", 10);
      expect(mine.map((hit) => hit.text)).not.toContain("Refund refund refund, other chatbot.");
      const theirs = await index.vectorSearch(OTHER_BOT, OTHER_SPACE, vector(1, 0, 0, 0), 10);
      expect(theirs.map((hit) => hit.text)).toEqual(["Refund refund refund, other chatbot."]);
      expect(await index.deleteDocument(OTHER_BOT, "shipping.md")).toBe(false);
      expect(await index.deleteDocument(OTHER_BOT, "refunds.md")).toBe(true);
      expect((await index.keywordSearch(BOT, "refund", 10)).length).toBe(3);
      expect(await index.keywordSearch("4d1e5a8b-0000-4000-8000-000000000000", "refund", 10)).toEqual([]);
    });

    test("a chatbot's keyword scores use its own statistics, whatever other chatbots hold", async (index) => {
      await seed(index, BOT);
      const before = await index.keywordSearch(BOT, "refund shipping courier", 10);
      for (let document = 0; document < 30; document++) {
        await index.replaceDocument(OTHER_BOT, SPACE, {
          source: `other-${document}.md`,
          title: "Refund shipping",
          chunks: [chunk(`refund shipping refund ${document} and a much longer body text about other matters entirely`, 1, 0, 0, 0)],
        });
      }
      const after = await index.keywordSearch(BOT, "refund shipping courier", 10);
      expect(after.map((hit) => hit.chunkId)).toEqual(before.map((hit) => hit.chunkId));
      after.forEach((hit, position) => expect(hit.score).toBeCloseTo(before[position]!.score, 9));
    });

    test("hostile keyword queries return results or nothing and never throw", async (index) => {
      await seed(index);
      for (const query of HOSTILE_QUERIES) {
        const hits = await index.keywordSearch(BOT, query, 5);
        expect(Array.isArray(hits), JSON.stringify(query.slice(0, 40))).toBe(true);
        expect(hits.length).toBeLessThanOrEqual(5);
      }
      expect(await index.keywordSearch(BOT, "", 5)).toEqual([]);
      expect(await index.keywordSearch(BOT, "  ;;; ", 5)).toEqual([]);
      expect(sources(await index.keywordSearch(BOT, '"refund*" AND NEAR(', 5))).toContain("refunds.md");
      expect(sources(await index.keywordSearch(BOT, "'; DROP TABLE chunks; -- courier", 5))).toEqual(["shipping.md"]);
      // The data is still there.
      expect(await index.listChunks(BOT, { limit: 10 })).toHaveLength(4);
    });

    test("stores text with NUL bytes, emoji and quotes as given", async (index) => {
      const text = 'Say "hi" 👋 \u0000 it\'s fine; DROP TABLE x;';
      await index.replaceDocument(BOT, SPACE, { source: "odd.md", title: "Odd 'title'", chunks: [chunk(text, 1, 1, 0, 0)] });
      const [listed] = await index.listChunks(BOT, { limit: 1 });
      expect(listed).toMatchObject({ source: "odd.md", title: "Odd 'title'", text });
      expect((await index.keywordSearch(BOT, "hi fine", 5)).map((hit) => hit.text)).toEqual([text]);
    });

    test("listChunks pages through every chunk in a stable order", async (index) => {
      await seed(index);
      const first = await index.listChunks(BOT, { limit: 3 });
      expect(first).toHaveLength(3);
      const second = await index.listChunks(BOT, { limit: 3, afterChunkId: first.at(-1)!.chunkId });
      expect(second).toHaveLength(1);
      expect(await index.listChunks(BOT, { limit: 3, afterChunkId: second[0]!.chunkId })).toEqual([]);
      const all = [...first, ...second];
      expect(new Set(all.map((stored) => stored.chunkId)).size).toBe(4);
      expect(all.map((stored) => stored.text).sort()).toEqual(
        (await index.listChunks(BOT, { limit: 100 })).map((stored) => stored.text).sort(),
      );
      expect(all[0]).toEqual({ chunkId: all[0]!.chunkId, source: "refunds.md", title: "Refund policy", text: "Refunds are paid within 14 days of a return." });
      expect(await index.listChunks(OTHER_BOT, { limit: 10 })).toEqual([]);
    });

    test("replaceEmbeddings with reset moves the chatbot to a new space", async (index) => {
      await seed(index);
      const chunks = await index.listChunks(BOT, { limit: 100 });
      const NEW: EmbeddingSpace = { embedderId: "contract-2", dimensions: 2 };
      const newVector = (stored: { text: string }) => (stored.text.includes("courier") ? Float32Array.from([1, 0]) : Float32Array.from([0, 1]));
      await index.replaceEmbeddings(BOT, NEW, chunks.slice(0, 2).map((stored) => ({ chunkId: stored.chunkId, embedding: newVector(stored) })), { reset: true });
      expect(await index.embeddingSpace(BOT)).toEqual(NEW);
      // Mid-reindex: only the re-embedded chunks are found by vector; keyword search is untouched.
      expect(await index.vectorSearch(BOT, NEW, Float32Array.from([1, 0]), 10)).toHaveLength(2);
      expect((await index.keywordSearch(BOT, "courier", 10)).length).toBe(1);
      const mismatch = await index.vectorSearch(BOT, SPACE, vector(1, 0, 0, 0), 3).then(() => null, (caught: unknown) => caught);
      expect(isParleyError(mismatch, "embedder_mismatch")).toBe(true);
      await index.replaceEmbeddings(BOT, NEW, chunks.slice(2).map((stored) => ({ chunkId: stored.chunkId, embedding: newVector(stored) })), { reset: false });
      const hits = await index.vectorSearch(BOT, NEW, Float32Array.from([1, 0]), 1);
      expect(hits.map((hit) => hit.text)).toEqual(["We ship to every country in Europe by courier."]);
      expect(await index.vectorSearch(BOT, NEW, Float32Array.from([0, 1]), 10)).toHaveLength(4);
      // Without reset, another space is refused.
      const refused = await index
        .replaceEmbeddings(BOT, SPACE, [{ chunkId: chunks[0]!.chunkId, embedding: vector(1, 0, 0, 0) }], { reset: false })
        .then(() => null, (caught: unknown) => caught);
      expect(isParleyError(refused, "embedder_mismatch")).toBe(true);
      // New documents must now come in the new space.
      const old = await index
        .replaceDocument(BOT, SPACE, { source: "x.md", title: "X", chunks: [chunk("x", 1, 0, 0, 0)] })
        .then(() => null, (caught: unknown) => caught);
      expect(isParleyError(old, "embedder_mismatch")).toBe(true);
    });

    test("replaceEmbeddings refuses a chunk of another chatbot and changes nothing", async (index) => {
      await seed(index, BOT);
      await seed(index, OTHER_BOT);
      const [foreign] = await index.listChunks(OTHER_BOT, { limit: 1 });
      const [mine] = await index.listChunks(BOT, { limit: 1 });
      const error = await index
        .replaceEmbeddings(BOT, SPACE, [
          { chunkId: mine!.chunkId, embedding: vector(0, 0, 0, 1) },
          { chunkId: foreign!.chunkId, embedding: vector(0, 0, 0, 1) },
        ], { reset: false })
        .then(() => null, (caught: unknown) => caught);
      expect(isParleyError(error)).toBe(true);
      const nearest = await index.vectorSearch(BOT, SPACE, vector(1, 0, 0, 0), 1);
      expect(nearest[0]!.chunkId).toBe(mine!.chunkId);
      expect((await index.vectorSearch(OTHER_BOT, SPACE, vector(1, 0, 0, 0), 1))[0]!.chunkId).toBe(
        (await index.listChunks(OTHER_BOT, { limit: 1 }))[0]!.chunkId,
      );
    });

    defineBatchCases(test);
    defineDocumentCases(test);
    defineHybridCases(test);
  });
}
