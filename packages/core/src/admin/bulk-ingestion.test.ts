import { describe, expect, it } from "vitest";
import { createMemorySearchIndex } from "../memory/memory-search-index.js";
import type { SearchIndex } from "../ports/search-index.js";
import { createLocalEmbedder } from "../retrieval/local-embedder.js";
import { chunkText } from "../retrieval/chunker.js";
import { rejection, setup } from "../../test/harness.js";
import type { IngestionProgress } from "./bulk-ingestion.js";

const CHUNKING = { maxChars: 60, overlapChars: 0 };
/** A document of `paragraphs` paragraphs, each too long to share a chunk with the next. */
const documentOf = (name: string, paragraphs: number) => ({
  source: `docs/${name}.md`,
  text: Array.from({ length: paragraphs }, (_, index) => `Paragraph ${index} of ${name} covers kettle warranty terms.`).join("\n\n"),
});

/** A memory index that records how many chunks each document of each `replaceDocuments` call held. */
function recordingIndex() {
  const inner = createMemorySearchIndex();
  const calls: { source: string; chunks: number }[][] = [];
  const index: SearchIndex = {
    ...inner,
    replaceDocuments: async (chatbotId, space, documents) => {
      calls.push(documents.map((document) => ({ source: document.source, chunks: document.chunks.length })));
      return inner.replaceDocuments(chatbotId, space, documents);
    },
  };
  return { index, calls };
}

const stored = async (searchIndex: SearchIndex, chatbotId: string) =>
  (await searchIndex.listChunks(chatbotId, { limit: 1000 })).map(({ source, title, text }) => ({ source, title, text }));

describe("ingestDocuments", () => {
  it("writes whole documents in batches of about batchChunks chunks, reporting progress after each", async () => {
    const { index, calls } = recordingIndex();
    const { parley, chatbot } = await setup({ searchIndex: index });
    const documents = [documentOf("a", 3), documentOf("b", 4), documentOf("c", 2), documentOf("d", 9), documentOf("e", 1)];
    const sizes = documents.map((document) => chunkText(document.text, CHUNKING).length);
    expect(sizes).toEqual([3, 4, 2, 9, 1]);
    const progress: IngestionProgress[] = [];
    const result = await parley.admin.ingestDocuments(chatbot.id, documents, {
      chunking: CHUNKING,
      batchChunks: 8,
      onProgress: (report) => progress.push(report),
    });
    expect(result).toEqual({ documents: 5, chunks: 19 });
    // a+b (7) then c would overfill; d alone is larger than a batch and is still not split.
    expect(calls.map((call) => call.map((document) => document.chunks))).toEqual([[3, 4], [2], [9], [1]]);
    expect(progress).toEqual([
      { documents: 2, totalDocuments: 5, chunks: 7 },
      { documents: 3, totalDocuments: 5, chunks: 9 },
      { documents: 4, totalDocuments: 5, chunks: 18 },
      { documents: 5, totalDocuments: 5, chunks: 19 },
    ]);
  });

  it("indexes exactly what ingestDocument would, one document at a time", async () => {
    const documents = [documentOf("a", 3), { ...documentOf("b", 2), title: "Bee" }, documentOf("c", 5)];
    const batched = await setup();
    await batched.parley.admin.ingestDocuments(batched.chatbot.id, documents, { chunking: CHUNKING, batchChunks: 4 });
    const single = await setup();
    for (const document of documents) await single.parley.admin.ingestDocument(single.chatbot.id, document, CHUNKING);
    expect(await stored(batched.searchIndex, batched.chatbot.id)).toEqual(await stored(single.searchIndex, single.chatbot.id));
    const query = (await createLocalEmbedder().embed(["Bee\nParagraph 1 of b covers kettle warranty terms."], "query"))[0]!;
    const nearest = async (context: typeof batched) =>
      (await context.searchIndex.vectorSearch(context.chatbot.id, { embedderId: createLocalEmbedder().id, dimensions: query.length }, query, 3)).map(
        (hit) => [hit.text, hit.score.toFixed(6)],
      );
    expect(await nearest(batched)).toEqual(await nearest(single));
  });

  it("removes a source given no text, and replaces a source ingested again", async () => {
    const { parley, chatbot, searchIndex } = await setup();
    await parley.admin.ingestDocuments(chatbot.id, [documentOf("a", 2), documentOf("b", 2)], { chunking: CHUNKING });
    await parley.admin.ingestDocuments(chatbot.id, [{ source: "docs/a.md", text: "" }, { source: "docs/b.md", text: "Only this now." }]);
    expect(await stored(searchIndex, chatbot.id)).toEqual([{ source: "docs/b.md", title: "b.md", text: "Only this now." }]);
  });

  it("chunks a document with sections page by page, each chunk labelled, so a search finds the page", async () => {
    const { parley, chatbot, searchIndex } = await setup();
    const manual = {
      source: "uploads/Manual.pdf",
      title: "Manual.pdf",
      text: "ignored when sections are given",
      sections: [
        { label: "page 1", text: "Unpack the kettle and rinse it." },
        { label: "page 2", text: "Fill it to the line." },
        { label: "page 3", text: "The heating element is covered for seven years." },
      ],
    };
    await expect(parley.admin.ingestDocuments(chatbot.id, [manual])).resolves.toEqual({ documents: 1, chunks: 3 });
    expect(await stored(searchIndex, chatbot.id)).toEqual([
      { source: "uploads/Manual.pdf", title: "Manual.pdf", text: "(page 1) Unpack the kettle and rinse it." },
      { source: "uploads/Manual.pdf", title: "Manual.pdf", text: "(page 2) Fill it to the line." },
      { source: "uploads/Manual.pdf", title: "Manual.pdf", text: "(page 3) The heating element is covered for seven years." },
    ]);
    const [best] = await searchIndex.keywordSearch(chatbot.id, "heating element covered", 1);
    expect(best?.text).toBe("(page 3) The heating element is covered for seven years.");
    // The type as read is kept, whatever the source's extension says.
    await parley.admin.ingestDocuments(chatbot.id, [{ source: "renamed.txt", text: "Really a PDF.", type: "pdf" }]);
    const types = (await searchIndex.listDocuments(chatbot.id, { limit: 10 })).map(({ source, type }) => ({ source, type }));
    expect(types).toEqual(expect.arrayContaining([{ source: "uploads/Manual.pdf", type: "pdf" }, { source: "renamed.txt", type: "pdf" }]));
    // ingestDocument chunks the same way.
    await parley.admin.ingestDocument(chatbot.id, { ...manual, source: "single.pdf" });
    const single = (await stored(searchIndex, chatbot.id)).filter((chunk) => chunk.source === "single.pdf").map((chunk) => chunk.text);
    expect(single).toEqual(["(page 1) Unpack the kettle and rinse it.", "(page 2) Fill it to the line.", "(page 3) The heating element is covered for seven years."]);
  });

  it("refuses a blank source, another embedder or a deleted chatbot before writing anything", async () => {
    const { index, calls } = recordingIndex();
    const { parley, chatbot, storage } = await setup({ searchIndex: index });
    const blank = await rejection(parley.admin.ingestDocuments(chatbot.id, [documentOf("a", 1), { source: "  ", text: "x" }]));
    expect(blank).toMatchObject({ code: "invalid_request", detail: "documents[1].source: must be a non-empty string" });
    expect(calls).toEqual([]);
    await parley.admin.ingestDocuments(chatbot.id, [documentOf("a", 1)]);
    const { createParley } = await import("../parley.js");
    const other = createParley({ storage, searchIndex: index, embedder: createLocalEmbedder({ dimensions: 256 }), chatModels: {} });
    expect((await rejection(other.admin.ingestDocuments(chatbot.id, [documentOf("b", 1)]))).code).toBe("embedder_mismatch");
    await parley.admin.deleteChatbot(chatbot.id);
    expect((await rejection(parley.admin.ingestDocuments(chatbot.id, [documentOf("c", 1)]))).detail).toBe("Chatbot not found.");
    expect(calls).toHaveLength(1);
  });
});
