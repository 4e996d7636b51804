import { knownEmbeddingDimensions } from "../embedding-models.js";

/** The vector length the fakes answer with for a model they do not know. */
export const FAKE_DEFAULT_DIMENSIONS = 8;

/**
 * A deterministic, unit-length bag-of-words vector: texts sharing words point the same way,
 * so end-to-end tests get retrieval that behaves sensibly without a real model.
 */
export function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    vector[hashWord(word) % dimensions]! += 1;
  }
  const length = Math.hypot(...vector);
  if (length === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((value) => value / length);
}

/** The dimensions of a known model, else the fake's configured or default length. */
export function fakeDimensionsFor(model: string, configured: number | undefined): number {
  return configured ?? knownEmbeddingDimensions(model) ?? FAKE_DEFAULT_DIMENSIONS;
}

/** FNV-1a, 32 bits. */
function hashWord(word: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < word.length; index += 1) {
    hash ^= word.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
