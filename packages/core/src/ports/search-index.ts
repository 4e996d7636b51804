import type { IndexedDocument } from "../domain/ingestion.js";
import type { Embedder } from "./embedder.js";

/** The embedding space a chatbot's vectors were made in. */
export interface EmbeddingSpace {
  embedderId: string;
  dimensions: number;
}

/** A document to index: its chunks, in order, each with its embedding. */
export interface DocumentToIndex {
  /** Identifies the document within the chatbot; indexing the same source again replaces it. */
  source: string;
  /** Shown with each chunk in the prompt; weighs more than the body in keyword search. */
  title: string;
  chunks: { text: string; embedding: Float32Array }[];
  /** The document's title in lists (default `title`): chunk titles may add a page or a heading. */
  documentTitle?: string;
  /** `pdf`, `docx`, `html`, `markdown` or `text` (default: from the source's extension, else `text`). */
  type?: string;
  /** Size of the extracted text in UTF-8 bytes (default: the chunks' text). */
  bytes?: number;
}

/** A chunk found by a search, best first. */
export interface SearchHit {
  /** Stable id of the chunk within the index. */
  chunkId: string;
  source: string;
  title: string;
  text: string;
  /** The arm's own score: higher is better (BM25 negated, or cosine similarity). */
  score: number;
  /**
   * The chunk's document as the index lists it, when the index read it with the chunk (so a
   * reply names its sources without another read); absent otherwise.
   */
  document?: HitDocument;
}

/** A hit's document: what a reply's sources name. */
export interface HitDocument {
  id: string;
  title: string;
  type: string;
}

/** What {@link SearchIndex.hybridSearch} searches for: a text, and the embedder of its vector. */
export interface HybridQuery {
  text: string;
  /** Chunks the keyword (BM25) arm returns at most. */
  keywordK: number;
  /** Chunks the vector arm returns at most. */
  vectorK: number;
  /** Embeds the text for the vector arm, once its space is known to be the chatbot's. */
  embedder: Pick<Embedder, "id" | "dimensions" | "embed">;
}

/** The hits of both arms of a hybrid search, each best first. */
export interface HybridHits {
  keyword: SearchHit[];
  vector: SearchHit[];
}

/** A stored chunk, for re-embedding. */
export interface StoredChunk {
  chunkId: string;
  source: string;
  title: string;
  text: string;
}

/**
 * Per-chatbot hybrid search: BM25 over chunk text and nearest neighbours over embeddings.
 * Every method that writes is atomic: a failure leaves the index as it was.
 */
export interface SearchIndex {
  /**
   * Replaces every chunk of `document.source` in the chatbot's index with the given chunks.
   * The first document fixes the chatbot's embedding space; a document in another space is
   * refused with an `embedder_mismatch` error.
   */
  replaceDocument(chatbotId: string, space: EmbeddingSpace, document: DocumentToIndex): Promise<{ chunks: number }>;
  /**
   * Replaces several documents in ONE atomic step, as `replaceDocument` would one by one: all are
   * written or, on any refusal (space, dimensions, values), none is. For bulk ingestion, where
   * one commit for many documents is much cheaper than one each. A source given twice ends as
   * its last version. Resolves to the number of chunks given, summed over the documents.
   */
  replaceDocuments(chatbotId: string, space: EmbeddingSpace, documents: DocumentToIndex[]): Promise<{ chunks: number }>;
  /** Removes a document's chunks; false when there were none. */
  deleteDocument(chatbotId: string, source: string): Promise<boolean>;
  /**
   * The chatbot's documents, most recently updated first (ties by id ascending), at most
   * `limit`, after a position. A document is created by its first indexing (id and creation
   * time chosen by the index) and keeps its id when replaced.
   */
  listDocuments(chatbotId: string, options: { limit: number; after?: { at: number; id: string } }): Promise<IndexedDocument[]>;
  /** One document of the chatbot by id or by source, or null. */
  getDocument(chatbotId: string, key: { id: string } | { source: string }): Promise<IndexedDocument | null>;
  /** How many documents and chunks the chatbot has. */
  documentStats(chatbotId: string): Promise<{ documents: number; chunks: number }>;
  /** The best `k` chunks for `text` by BM25. Any text is safe; text with no words finds nothing. */
  keywordSearch(chatbotId: string, text: string, k: number): Promise<SearchHit[]>;
  /**
   * The `k` chunks nearest to `vector`. Refused with `embedder_mismatch` when the chatbot's
   * vectors were made in another space; an empty index finds nothing.
   */
  vectorSearch(chatbotId: string, space: EmbeddingSpace, vector: Float32Array, k: number): Promise<SearchHit[]>;
  /**
   * Both arms of a chat's retrieval: BM25 over `query.text` and the nearest neighbours of its
   * embedding. Null for a chatbot without documents, whose query is then not embedded; refused
   * with `embedder_mismatch`, before anything is embedded, when the chatbot's vectors were made
   * in another space than the embedder's. The same as `embeddingSpace`, then `keywordSearch`
   * and `vectorSearch` (`hybridSearchInParts`), where an index can do it in fewer round trips.
   */
  hybridSearch(chatbotId: string, query: HybridQuery): Promise<HybridHits | null>;
  /** The chatbot's embedding space, or null before its first document. */
  embeddingSpace(chatbotId: string): Promise<EmbeddingSpace | null>;
  /** Every chunk of the chatbot, in a stable order, `limit` at a time after `afterChunkId`. */
  listChunks(chatbotId: string, options: { afterChunkId?: string; limit: number }): Promise<StoredChunk[]>;
  /**
   * Moves the chatbot to a new embedding space: replaces the vector of every chunk named.
   * Called with the whole chatbot's chunks (in pages) by reindexing; the space is switched by
   * the first call with `reset: true`, which drops every old vector.
   */
  replaceEmbeddings(
    chatbotId: string,
    space: EmbeddingSpace,
    embeddings: { chunkId: string; embedding: Float32Array }[],
    options: { reset: boolean },
  ): Promise<void>;
}
