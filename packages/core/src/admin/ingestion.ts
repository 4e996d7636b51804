import type { Dependencies } from "../dependencies.js";
import { embedderMismatch, invalidRequest } from "../errors.js";
import type { Embedder } from "../ports/embedder.js";
import type { DocumentInput } from "../domain/knowledge.js";
import { chunkSections, chunkText, type ChunkOptions } from "../retrieval/chunker.js";
import { findLiveChatbot } from "../chatbots/owned-chatbot.js";

/** A document's chunks: by section when it has sections, else of its whole text. */
export function chunkDocument(document: DocumentInput, options: ChunkOptions = {}): string[] {
  return document.sections ? chunkSections(document.sections, options) : chunkText(document.text, options);
}

/** Embeds texts in batches of the embedder's declared size, keeping their order. */
export async function embedInBatches(embedder: Embedder, texts: string[], purpose: "query" | "document"): Promise<Float32Array[]> {
  const vectors: Float32Array[] = [];
  const batchSize = Math.max(1, embedder.maxBatchSize);
  for (let start = 0; start < texts.length; start += batchSize) {
    vectors.push(...(await embedder.embed(texts.slice(start, start + batchSize), purpose)));
  }
  return vectors;
}

/**
 * Chunks, embeds and indexes one document for a chatbot, replacing an earlier version of the
 * same source in one atomic step. A document with no text removes the source.
 */
export async function ingestDocument(
  dependencies: Pick<Dependencies, "storage" | "searchIndex" | "embedder">,
  chatbotId: string,
  document: DocumentInput,
  options: ChunkOptions = {},
): Promise<{ chunks: number }> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const source = document.source.trim();
  if (source === "") throw invalidRequest("source: must be a non-empty string");
  const { embedder, searchIndex } = dependencies;
  const space = await searchIndex.embeddingSpace(chatbot.id);
  // Refuse before the (possibly paid) embedding calls, not after.
  if (space && (space.embedderId !== embedder.id || space.dimensions !== embedder.dimensions)) {
    throw embedderMismatch(chatbot.id, space.embedderId, embedder.id);
  }
  const texts = chunkDocument(document, options);
  const title = document.title?.trim() || source.split(/[\\/]/).pop() || source;
  // Each chunk is embedded with its document's title, so a chunk far from the title still carries its topic.
  const vectors = await embedInBatches(embedder, texts.map((text) => `${title}\n${text}`), "document");
  return searchIndex.replaceDocument(
    chatbot.id,
    { embedderId: embedder.id, dimensions: embedder.dimensions },
    { source, title, chunks: texts.map((text, index) => ({ text, embedding: vectors[index]! })), ...(document.type ? { type: document.type } : {}) },
  );
}

/** Removes a document from a chatbot's knowledge; false when it was not there. */
export async function removeDocument(dependencies: Pick<Dependencies, "storage" | "searchIndex">, chatbotId: string, source: string): Promise<boolean> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  return dependencies.searchIndex.deleteDocument(chatbot.id, source.trim());
}

/** Re-embeds every chunk of a chatbot with the configured embedder (after changing embedders). */
export async function reindexChatbot(
  dependencies: Pick<Dependencies, "storage" | "searchIndex" | "embedder">,
  chatbotId: string,
  pageSize = 256,
): Promise<{ chunks: number }> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const { embedder, searchIndex } = dependencies;
  const space = { embedderId: embedder.id, dimensions: embedder.dimensions };
  let afterChunkId: string | undefined;
  let count = 0;
  // The first page switches the chatbot to the new space (dropping old vectors), even when empty.
  for (let reset = true; ; reset = false) {
    const page = await searchIndex.listChunks(chatbot.id, { ...(afterChunkId === undefined ? {} : { afterChunkId }), limit: pageSize });
    const vectors = await embedInBatches(embedder, page.map((chunk) => `${chunk.title}\n${chunk.text}`), "document");
    const embeddings = page.map((chunk, index) => ({ chunkId: chunk.chunkId, embedding: vectors[index]! }));
    await searchIndex.replaceEmbeddings(chatbot.id, space, embeddings, { reset });
    count += page.length;
    if (page.length < pageSize) break;
    afterChunkId = page.at(-1)!.chunkId;
  }
  return { chunks: count };
}
