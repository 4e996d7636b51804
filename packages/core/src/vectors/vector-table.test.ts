import { describe, expect, it } from "vitest";
import { seededRandom } from "./test-random.js";
import { appendVector, candidateIds, cosineSimilarity, createVectorTable } from "./vector-table.js";

const DIMENSIONS = 1_024;
const ROWS = 4_000;

/** A vector like the local embedder's: `nonZero` hashed dimensions, a few of them heavy. */
function sparseVector(random: () => number, nonZero: number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  for (let index = 0; index < nonZero; index++) vector[Math.floor(random() * DIMENSIONS)] = (random() - 0.5) * (random() < 0.1 ? 6 : 1);
  return vector;
}

function table(random: () => number) {
  const vectors = Array.from({ length: ROWS }, () => sparseVector(random, 300));
  const held = createVectorTable({ generation: 1, epoch: 1, dimensions: DIMENSIONS }, false);
  vectors.forEach((vector, index) => appendVector(held, index + 1, vector));
  return { held, vectors };
}

const exactBest = (ids: number[], vectors: Float32Array[], query: Float32Array, k: number) =>
  ids
    .map((id) => ({ id, score: cosineSimilarity(vectors[id - 1]!, query) }))
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, k)
    .map(({ id }) => id);

describe("candidateIds' second pass", () => {
  it("narrows a sparse query's candidates to `keep` that hold the exact best of them", () => {
    const random = seededRandom(3);
    const { held, vectors } = table(random);
    let kept = 0;
    const queries = 40;
    for (let query = 0; query < queries; query++) {
      const vector = sparseVector(random, 80);
      const wide = candidateIds(held, vector, 100);
      const narrow = candidateIds(held, vector, 100, 30);
      expect(wide).toHaveLength(100);
      expect(narrow).toHaveLength(30);
      expect(wide).toEqual(expect.arrayContaining(narrow));
      // The 20 a search would return from all 100, found among the 30.
      const best = exactBest(wide, vectors, vector, 20);
      kept += best.filter((id) => narrow.includes(id)).length;
    }
    expect(kept / (queries * 20)).toBeGreaterThanOrEqual(0.99);
  });

  it("leaves a dense query's candidates whole: reading every dimension would cost more than it saves", () => {
    const random = seededRandom(4);
    const { held } = table(random);
    const dense = Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5);
    expect(candidateIds(held, dense, 100, 30)).toHaveLength(100);
  });
});
