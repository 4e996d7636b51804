import type { Dependencies } from "../dependencies.js";
import { embedderMismatch, invalidRequest } from "../errors.js";
import type { DocumentToIndex } from "../ports/search-index.js";
import type { ChunkOptions } from "../retrieval/chunker.js";
import { findLiveChatbot } from "../chatbots/owned-chatbot.js";
import type { DocumentInput } from "../domain/knowledge.js";
import { chunkDocument, embedInBatches } from "./ingestion.js";

/** How far a bulk ingestion has got, reported after each batch is written. */
export interface IngestionProgress {
  /** Documents written so far, of `totalDocuments`. */
  documents: number;
  totalDocuments: number;
  /** Chunks written so far. */
  chunks: number;
}

/** Options of `ingestDocuments`. */
export interface IngestDocumentsOptions {
  chunking?: ChunkOptions;
  /**
   * Chunks per write (default 256): a batch closes once it holds this many, a document is never
   * split. The SQLite index commits once per batch, and each commit costs an FTS5 segment.
   */
  batchChunks?: number;
  /** Called after each batch is written. */
  onProgress?: (progress: IngestionProgress) => void;
}

interface PendingDocument {
  source: string;
  title: string;
  texts: string[];
  type: string | undefined;
}

/**
 * Chunks, embeds and indexes many documents for a chatbot, writing them in batches of about
 * `batchChunks` chunks with one `replaceDocuments` call each. Each batch is atomic; a failure
 * stops the ingestion with the earlier batches written (ingesting again replaces them). As with
 * `ingestDocument`, a document with no text removes its source.
 */
export async function ingestDocuments(
  dependencies: Pick<Dependencies, "storage" | "searchIndex" | "embedder">,
  chatbotId: string,
  documents: DocumentInput[],
  options: IngestDocumentsOptions = {},
): Promise<{ documents: number; chunks: number }> {
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const { embedder, searchIndex } = dependencies;
  // Every source is checked before anything is written, so a typo in the last file costs nothing.
  const sources = documents.map((document, position) => {
    const source = document.source.trim();
    if (source === "") throw invalidRequest(`documents[${position}].source: must be a non-empty string`);
    return source;
  });
  const recorded = await searchIndex.embeddingSpace(chatbot.id);
  // Refuse before the (possibly paid) embedding calls, not after.
  if (recorded && (recorded.embedderId !== embedder.id || recorded.dimensions !== embedder.dimensions)) {
    throw embedderMismatch(chatbot.id, recorded.embedderId, embedder.id);
  }
  const space = { embedderId: embedder.id, dimensions: embedder.dimensions };
  const batchChunks = Math.max(1, Math.floor(options.batchChunks ?? 256));
  const progress: IngestionProgress = { documents: 0, totalDocuments: documents.length, chunks: 0 };
  let pending: PendingDocument[] = [];
  let pendingChunks = 0;

  const flush = async () => {
    // One embedding pass over the whole batch: fewer, fuller calls than one per document.
    const texts = pending.flatMap((document) => document.texts.map((text) => `${document.title}\n${text}`));
    const vectors = await embedInBatches(embedder, texts, "document");
    let next = 0;
    const batch: DocumentToIndex[] = pending.map(({ source, title, texts: chunks, type }) => ({
      source,
      title,
      chunks: chunks.map((text) => ({ text, embedding: vectors[next++]! })),
      ...(type ? { type } : {}),
    }));
    const { chunks } = await searchIndex.replaceDocuments(chatbot.id, space, batch);
    progress.documents += batch.length;
    progress.chunks += chunks;
    pending = [];
    pendingChunks = 0;
    options.onProgress?.({ ...progress });
  };

  for (const [position, document] of documents.entries()) {
    const source = sources[position]!;
    const title = document.title?.trim() || source.split(/[\\/]/).pop() || source;
    const texts = chunkDocument(document, options.chunking ?? {});
    // Close the batch before a document that would overfill it, so no document is split.
    if (pending.length > 0 && pendingChunks + texts.length > batchChunks) await flush();
    pending.push({ source, title, texts, type: document.type });
    pendingChunks += texts.length;
  }
  if (pending.length > 0) await flush();
  return { documents: progress.documents, chunks: progress.chunks };
}
