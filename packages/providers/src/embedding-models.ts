import type { Embedder, EmbeddingPurpose, FusionParameters } from "@parley/core";
import { UnexpectedReplyError } from "./chat-turns.js";

/** Equal-weight RRF with k = 60, the default for a semantic model until measured otherwise (docs/design.md §4). */
export const SEMANTIC_FUSION: FusionParameters = { k: 60, keywordWeight: 1, vectorWeight: 1 };

/**
 * Native vector sizes of common embedding models, by name without an Ollama `:tag` (every tag
 * of these models has the same size). Any other model needs the `dimensions` option.
 */
const KNOWN_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "nomic-embed-text": 768,
  "mxbai-embed-large": 1024,
  "all-minilm": 384,
  "bge-m3": 1024,
};

/** Texts these models were trained to see before queries and passages (from their model cards). */
const KNOWN_PREFIXES: Readonly<Record<string, EmbeddingPrefixes>> = {
  "nomic-embed-text": { query: "search_query: ", document: "search_document: " },
  "mxbai-embed-large": { query: "Represent this sentence for searching relevant passages: ", document: "" },
};

/** What is put before each text, by purpose. */
export interface EmbeddingPrefixes {
  query: string;
  document: string;
}

/** Options every remote embedder takes besides its connection. */
export interface EmbeddingModelOptions {
  /** The model name, e.g. `text-embedding-3-small` or `nomic-embed-text`. */
  model: string;
  /** Vector length. Known for the common models; required for any other. */
  dimensions?: number;
  /** Most texts sent in one request. */
  maxBatchSize?: number;
  /** Default fusion with BM25; default {@link SEMANTIC_FUSION}. */
  fusion?: FusionParameters;
  /** Query and document prefixes; default the model's known ones, else none. */
  prefixes?: EmbeddingPrefixes;
}

/** A model name without an Ollama tag: `nomic-embed-text:v1.5` → `nomic-embed-text`. */
function baseName(model: string): string {
  const colon = model.lastIndexOf(":");
  return colon === -1 ? model : model.slice(0, colon);
}

/** The native vector length of a known model, else `undefined`. */
export function knownEmbeddingDimensions(model: string): number | undefined {
  return KNOWN_DIMENSIONS[model] ?? KNOWN_DIMENSIONS[baseName(model)];
}

/** The prefixes a known model expects, else none. */
export function knownEmbeddingPrefixes(model: string): EmbeddingPrefixes {
  return KNOWN_PREFIXES[model] ?? KNOWN_PREFIXES[baseName(model)] ?? { query: "", document: "" };
}

/** The declared vector length of an embedder: the option, else the known size, else a clear error. */
export function resolveDimensions(model: string, dimensions: number | undefined): number {
  const resolved = dimensions ?? knownEmbeddingDimensions(model);
  if (resolved === undefined) {
    throw new Error(
      `The vector size of embedding model "${model}" is not known: pass the dimensions option ` +
        "(PARLEY_EMBEDDER_DIMENSIONS for the server).",
    );
  }
  if (!Number.isInteger(resolved) || resolved <= 0) throw new Error(`dimensions must be a positive whole number, got ${resolved}.`);
  return resolved;
}

/** Checks a batch's vectors against the declared shape and turns them into Float32Arrays. */
export function toFloat32Vectors(vectors: unknown, expectedCount: number, dimensions: number): Float32Array[] {
  if (!Array.isArray(vectors) || vectors.length !== expectedCount) {
    throw new UnexpectedReplyError(`Expected ${expectedCount} vectors, got ${Array.isArray(vectors) ? vectors.length : "none"}.`);
  }
  return vectors.map((vector: unknown) => {
    // A wrong length would corrupt the index silently (e.g. base64 read as floats gives []).
    if (!Array.isArray(vector) || vector.length !== dimensions) {
      throw new UnexpectedReplyError(`Expected vectors of ${dimensions} numbers, got ${Array.isArray(vector) ? vector.length : typeof vector}.`);
    }
    return Float32Array.from(vector as number[]);
  });
}

/** An Embedder that sends `texts` in batches of `maxBatchSize`, in order, one request at a time. */
export function batchingEmbedder(
  shape: Omit<Embedder, "embed"> & { prefixes: EmbeddingPrefixes },
  embedBatch: (texts: string[]) => Promise<Float32Array[]>,
): Embedder {
  if (!Number.isInteger(shape.maxBatchSize) || shape.maxBatchSize <= 0) {
    throw new Error(`maxBatchSize must be a positive whole number, got ${shape.maxBatchSize}.`);
  }
  return {
    id: shape.id,
    dimensions: shape.dimensions,
    maxBatchSize: shape.maxBatchSize,
    fusion: shape.fusion,
    async embed(texts: string[], purpose: EmbeddingPurpose): Promise<Float32Array[]> {
      const prefix = shape.prefixes[purpose];
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += shape.maxBatchSize) {
        const batch = texts.slice(start, start + shape.maxBatchSize).map((text) => prefix + text);
        vectors.push(...(await embedBatch(batch)));
      }
      return vectors;
    },
  };
}
