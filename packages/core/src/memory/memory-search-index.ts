import type { IndexedDocument } from "../domain/ingestion.js";
import { embedderMismatch, invalidRequest } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { DocumentToIndex, EmbeddingSpace, SearchHit, SearchIndex, StoredChunk } from "../ports/search-index.js";
import { documentBytesOf, documentTypeOf } from "../retrieval/document-facts.js";
import { countTerms, queryWords, stem, words } from "../retrieval/tokenizer.js";
import { hybridSearchInParts } from "../retrieval/hybrid-search.js";
import { randomIds } from "../support/ids.js";
import { systemClock } from "../support/time.js";

/** BM25 as SQLite FTS5 computes it (k1 1.2, b 0.75), the title weighing 3× the body, as in SQLite. */
const K1 = 1.2;
const B = 0.75;
const TITLE_WEIGHT = 3;

interface MemoryChunk extends StoredChunk {
  id: number;
  embedding: Float32Array | null;
  titleTerms: Map<string, number>;
  titleLength: number;
  bodyTerms: Map<string, number>;
  bodyLength: number;
}

interface ChatbotIndex {
  space: EmbeddingSpace | null;
  documents: Map<string, MemoryChunk[]>;
  /** The documents' facts, by source. */
  catalog: Map<string, IndexedDocument>;
}

const sameSpace = (a: EmbeddingSpace, b: EmbeddingSpace) => a.embedderId === b.embedderId && a.dimensions === b.dimensions;
const describe = (space: EmbeddingSpace) => `${space.embedderId} (${space.dimensions} dimensions)`;

/** Refuses vectors of the wrong length or with NaN/Infinity, which would poison every search. */
export function assertValidEmbedding(embedding: Float32Array, space: EmbeddingSpace): void {
  if (!(embedding instanceof Float32Array) || embedding.length !== space.dimensions) {
    throw invalidRequest(`embedding: must have ${space.dimensions} dimensions`);
  }
  for (const value of embedding) if (!Number.isFinite(value)) throw invalidRequest("embedding: must hold finite numbers");
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < a.length; index++) {
    dot += a[index]! * b[index]!;
    normA += a[index]! * a[index]!;
    normB += b[index]! * b[index]!;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}

const analyse = (text: string) => {
  const terms = words(text).map(stem);
  return { counts: countTerms(terms), length: terms.length };
};

/**
 * An in-memory SearchIndex: BM25 in JavaScript with per-chatbot statistics (the same
 * tokenizer as FTS5's `porter unicode61`, approximately) and exact cosine. For tests and
 * small embedded uses; every search scans the chatbot's chunks.
 */
export function createMemorySearchIndex(options: { clock?: Clock } = {}): SearchIndex {
  const clock = options.clock ?? systemClock;
  const chatbots = new Map<string, ChatbotIndex>();
  let nextId = 1;

  const chatbot = (chatbotId: string) => {
    let entry = chatbots.get(chatbotId);
    if (entry === undefined) {
      entry = { space: null, documents: new Map(), catalog: new Map() };
      chatbots.set(chatbotId, entry);
    }
    return entry;
  };
  const chunksOf = (chatbotId: string) => [...(chatbots.get(chatbotId)?.documents.values() ?? [])].flat().sort((a, b) => a.id - b.id);
  const hit = (chunk: MemoryChunk, score: number): SearchHit => ({
    chunkId: String(chunk.id),
    source: chunk.source,
    title: chunk.title,
    text: chunk.text,
    score,
  });
  const checkSpace = (chatbotId: string, recorded: EmbeddingSpace | null, given: EmbeddingSpace) => {
    if (recorded !== null && !sameSpace(recorded, given)) throw embedderMismatch(chatbotId, describe(recorded), describe(given));
  };

  const chunksOfDocument = (document: DocumentToIndex): MemoryChunk[] => {
    const title = analyse(document.title);
    return document.chunks.map((chunk): MemoryChunk => {
      const body = analyse(chunk.text);
      const id = nextId++;
      return {
        id,
        chunkId: String(id),
        source: document.source,
        title: document.title,
        text: chunk.text,
        embedding: Float32Array.from(chunk.embedding),
        titleTerms: title.counts,
        titleLength: title.length,
        bodyTerms: body.counts,
        bodyLength: body.length,
      };
    });
  };
  const catalogued = (chatbotId: string, document: DocumentToIndex, earlier: IndexedDocument | undefined, chunks: number): IndexedDocument => {
    const now = clock.now();
    return {
      id: earlier?.id ?? randomIds.uuid(),
      chatbotId,
      source: document.source,
      title: document.documentTitle ?? document.title,
      type: documentTypeOf(document),
      chunks,
      bytes: documentBytesOf(document),
      createdAt: earlier?.createdAt ?? now,
      updatedAt: now,
    };
  };
  // Everything is checked before anything changes, so a refused batch leaves the index as it was.
  const replaceDocuments = async (chatbotId: string, space: EmbeddingSpace, documents: DocumentToIndex[]) => {
    checkSpace(chatbotId, chatbots.get(chatbotId)?.space ?? null, space);
    for (const document of documents) for (const chunk of document.chunks) assertValidEmbedding(chunk.embedding, space);
    const target = chatbot(chatbotId);
    target.space ??= { embedderId: space.embedderId, dimensions: space.dimensions };
    let count = 0;
    // In order, so a source given twice ends as its last version.
    for (const document of documents) {
      const chunks = chunksOfDocument(document);
      if (chunks.length === 0) {
        target.documents.delete(document.source);
        target.catalog.delete(document.source);
      } else {
        target.documents.set(document.source, chunks);
        target.catalog.set(document.source, catalogued(chatbotId, document, target.catalog.get(document.source), chunks.length));
      }
      count += chunks.length;
    }
    return { chunks: count };
  };

  return {
    async replaceDocument(chatbotId, space, document) {
      return replaceDocuments(chatbotId, space, [document]);
    },

    async replaceDocuments(chatbotId, space, documents) {
      return replaceDocuments(chatbotId, space, documents);
    },

    async deleteDocument(chatbotId, source) {
      chatbots.get(chatbotId)?.catalog.delete(source);
      return chatbots.get(chatbotId)?.documents.delete(source) ?? false;
    },

    async listDocuments(chatbotId, { limit, after }) {
      return [...(chatbots.get(chatbotId)?.catalog.values() ?? [])]
        .filter((document) => after === undefined || document.updatedAt < after.at || (document.updatedAt === after.at && document.id > after.id))
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.id < b.id ? -1 : 1))
        .slice(0, limit)
        .map((document) => ({ ...document }));
    },

    async getDocument(chatbotId, key) {
      const catalog = chatbots.get(chatbotId)?.catalog;
      const found = "source" in key ? catalog?.get(key.source) : [...(catalog?.values() ?? [])].find((document) => document.id === key.id);
      return found ? { ...found } : null;
    },

    async documentStats(chatbotId) {
      const documents = [...(chatbots.get(chatbotId)?.catalog.values() ?? [])];
      return { documents: documents.length, chunks: documents.reduce((sum, document) => sum + document.chunks, 0) };
    },

    async keywordSearch(chatbotId, text, k) {
      const queryTerms = queryWords(text).map(stem);
      const chunks = chunksOf(chatbotId);
      if (queryTerms.length === 0 || chunks.length === 0 || k <= 0) return [];
      const count = chunks.length;
      const averageTitle = chunks.reduce((sum, chunk) => sum + chunk.titleLength, 0) / count || 1;
      const averageBody = chunks.reduce((sum, chunk) => sum + chunk.bodyLength, 0) / count || 1;
      const scored: { chunk: MemoryChunk; score: number }[] = [];
      for (const chunk of chunks) {
        let score = 0;
        for (const term of queryTerms) {
          const titleFrequency = chunk.titleTerms.get(term) ?? 0;
          const bodyFrequency = chunk.bodyTerms.get(term) ?? 0;
          if (titleFrequency === 0 && bodyFrequency === 0) continue;
          const documents = chunks.filter((other) => other.titleTerms.has(term) || other.bodyTerms.has(term)).length;
          const idf = Math.max(1e-6, Math.log((count - documents + 0.5) / (documents + 0.5)));
          const frequency =
            TITLE_WEIGHT * titleFrequency / (titleFrequency + K1 * (1 - B + B * chunk.titleLength / averageTitle)) +
            bodyFrequency / (bodyFrequency + K1 * (1 - B + B * chunk.bodyLength / averageBody));
          score += idf * frequency * (K1 + 1);
        }
        if (score > 0) scored.push({ chunk, score });
      }
      scored.sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id);
      return scored.slice(0, k).map(({ chunk, score }) => hit(chunk, score));
    },

    async vectorSearch(chatbotId, space, vector, k) {
      const entry = chatbots.get(chatbotId);
      if (entry === undefined || entry.space === null) return [];
      checkSpace(chatbotId, entry.space, space);
      assertValidEmbedding(vector, space);
      if (k <= 0) return [];
      return chunksOf(chatbotId)
        .filter((chunk) => chunk.embedding !== null)
        .map((chunk) => ({ chunk, score: cosine(vector, chunk.embedding!) }))
        .sort((a, b) => b.score - a.score || a.chunk.id - b.chunk.id)
        .slice(0, k)
        .map(({ chunk, score }) => hit(chunk, score));
    },

    hybridSearch(chatbotId, query) {
      return hybridSearchInParts(this, chatbotId, query);
    },

    async embeddingSpace(chatbotId) {
      const space = chatbots.get(chatbotId)?.space ?? null;
      return space === null ? null : { ...space };
    },

    async listChunks(chatbotId, options) {
      const after = options.afterChunkId === undefined ? 0 : Number(options.afterChunkId);
      return chunksOf(chatbotId)
        .filter((chunk) => chunk.id > after)
        .slice(0, Math.max(0, options.limit))
        .map(({ chunkId, source, title, text }) => ({ chunkId, source, title, text }));
    },

    async replaceEmbeddings(chatbotId, space, embeddings, options) {
      const entry = chatbot(chatbotId);
      if (!options.reset) checkSpace(chatbotId, entry.space, space);
      for (const { embedding } of embeddings) assertValidEmbedding(embedding, space);
      const byId = new Map(chunksOf(chatbotId).map((chunk) => [chunk.chunkId, chunk]));
      for (const { chunkId } of embeddings) {
        if (!byId.has(chunkId)) throw invalidRequest(`chunkId: ${chunkId} is not a chunk of this chatbot`);
      }
      if (options.reset) {
        entry.space = { embedderId: space.embedderId, dimensions: space.dimensions };
        for (const chunk of byId.values()) chunk.embedding = null;
      }
      for (const { chunkId, embedding } of embeddings) byId.get(chunkId)!.embedding = Float32Array.from(embedding);
    },
  };
}
