import type { Embedder, FusionParameters } from "../ports/embedder.js";
import { STOPWORDS, stem } from "./tokenizer.js";
import { createWordTable } from "./word-table.js";

/** Parameters of the local hashing embedder; each one is part of its `id`. */
export interface LocalEmbedderOptions {
  /** Length of the vectors, a power of two (default 1024). */
  dimensions?: number;
  /** Shortest and longest character n-gram of each word (default 3 and 5). */
  ngramRange?: [number, number];
  /** Weight of the character n-gram block against the word block (default 0.5). */
  ngramWeight?: number;
  /** Fusion defaults to declare; measured on the SciFact training judgments (docs/retrieval.md). */
  fusion?: FusionParameters;
}

/**
 * Defaults for fusing a lexical hashing embedder with BM25. It finds the same words BM25 finds,
 * only worse, so it weighs little: the best of a grid on SciFact's training judgments (never the
 * test queries) was k = 5 with the vector arm at 0.1, while equal-weight RRF with k = 60 loses
 * about 0.06 nDCG@10 against keyword-only (docs/retrieval.md).
 */
export const LOCAL_EMBEDDER_FUSION: FusionParameters = { k: 5, keywordWeight: 1, vectorWeight: 0.1 };

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const WORD_SEED = 0x9e3779b9;
const NGRAM_SEED = 0x85ebca6b;

/** FNV-1a over a string's UTF-16 code units, from a seed. */
function fnv(text: string, seed: number): number {
  let hash = (FNV_OFFSET ^ seed) >>> 0;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), FNV_PRIME);
  return hash;
}

/** Murmur3's finaliser: spreads FNV's weak low bits over the bucket and the sign. */
function mix(hash: number): number {
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** 1 / the L2 norm of a vector, or 1 for the zero vector (which scaling then leaves as it is). */
function inverseNorm(values: Float64Array): number {
  let sum = 0;
  for (let index = 0; index < values.length; index++) sum += values[index]! * values[index]!;
  return sum === 0 ? 1 : 1 / Math.sqrt(sum);
}

/**
 * Parley's built-in embedder: feature hashing of Porter-stemmed content words and of the
 * character n-grams of each word, each block L2-normalised, summed with the n-gram weight and
 * normalised again. Deterministic, no model, no network; a text with no words gives the zero
 * vector. It is lexical, not semantic: a real embedding model retrieves better.
 */
export function createLocalEmbedder(options: LocalEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? 1024;
  const [minGram, maxGram] = options.ngramRange ?? [3, 5];
  const ngramWeight = options.ngramWeight ?? 0.5;
  if (!Number.isInteger(dimensions) || dimensions < 8 || (dimensions & (dimensions - 1)) !== 0) {
    throw new RangeError("The local embedder's dimensions must be a power of two, at least 8.");
  }
  if (!(minGram >= 1 && maxGram >= minGram)) throw new RangeError("Invalid n-gram range.");
  const mask = dimensions - 1;

  // A word's features: its stem, then its n-grams, each a bucket with a sign (word-table.ts).
  const encode = (hash: number) => {
    const mixed = mix(hash);
    return ((mixed & mask) << 1) | (mixed >>> 31);
  };
  const featuresOf = (word: string): number[] => {
    if (STOPWORDS.has(word)) return [];
    const found = [encode(fnv(stem(word), WORD_SEED))];
    if (ngramWeight !== 0) {
      // Incremental FNV: every n-gram starting at `start` extends the previous one's hash.
      const padded = `<${word}>`;
      for (let start = 0; start + minGram <= padded.length; start++) {
        let hash = (FNV_OFFSET ^ NGRAM_SEED) >>> 0;
        const end = Math.min(padded.length, start + maxGram);
        for (let index = start; index < end; index++) {
          hash = Math.imul(hash ^ padded.charCodeAt(index), FNV_PRIME);
          if (index - start + 1 >= minGram) found.push(encode(hash));
        }
      }
    }
    return found;
  };
  const table = createWordTable(featuresOf);

  // Scratch, reused: allocating three 8 KB arrays per text cost more than filling them.
  const wordBlock = new Float64Array(dimensions);
  const gramBlock = new Float64Array(dimensions);
  const vector = new Float64Array(dimensions);
  /** +weight or -weight by a feature's sign bit, without a branch. */
  const SIGNS = [1, -1];

  /** Writes the embedding of `text` into `out` (a view of the batch's one allocation). */
  const embedOne = (text: string, out: Float32Array): void => {
    wordBlock.fill(0);
    gramBlock.fill(0);
    const { slots, length } = table.countWords(text);
    const { pool } = table;
    for (let index = 0; index < length; index++) {
      const slot = slots[index]!;
      const weight = 1 + Math.log(table.count(slot)); // sublinear: the tenth repeat adds little
      const start = table.start(slot);
      const end = start + table.length(slot);
      wordBlock[pool[start]! >>> 1]! += SIGNS[pool[start]! & 1]! * weight;
      for (let feature = start + 1; feature < end; feature++) gramBlock[pool[feature]! >>> 1]! += SIGNS[pool[feature]! & 1]! * weight;
    }
    // Each block normalised, summed with the n-gram weight, normalised again: fused into three
    // passes, in the same order of operations as normalising each array in place.
    const wordScale = inverseNorm(wordBlock);
    const gramScale = inverseNorm(gramBlock);
    for (let index = 0; index < dimensions; index++) {
      vector[index] = wordBlock[index]! * wordScale + ngramWeight * (gramBlock[index]! * gramScale);
    }
    const scale = inverseNorm(vector);
    for (let index = 0; index < dimensions; index++) out[index] = vector[index]! * scale;
  };

  return {
    id: `local-hash-v1-${dimensions}-w1-c${minGram}-${maxGram}x${ngramWeight}`,
    dimensions,
    maxBatchSize: 256,
    fusion: options.fusion ?? LOCAL_EMBEDDER_FUSION,
    embed: async (texts) => {
      // One allocation for the batch: a 4 KB array per text cost as much as scaling it.
      const batch = new Float32Array(texts.length * dimensions);
      return texts.map((text, index) => {
        const out = batch.subarray(index * dimensions, (index + 1) * dimensions);
        embedOne(text, out);
        return out;
      });
    },
  };
}
