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

describe("candidateIds' first pass", () => {
  it("breaks ties by row order: of many rows scoring alike, the first ones", () => {
    const held = createVectorTable({ generation: 1, epoch: 1, dimensions: 8 }, false);
    const same = Float32Array.from([1, 0.5, 0, 0, 0, 0, 0, 0]);
    // 300 rows alike, then 30 better ones, then 300 more alike: 100 wanted are the 30 and the first 70.
    for (let id = 1; id <= 300; id++) appendVector(held, id, same);
    for (let id = 301; id <= 330; id++) appendVector(held, id, Float32Array.from([1, 0.5, 0.4, 0, 0, 0, 0, 0]));
    for (let id = 331; id <= 630; id++) appendVector(held, id, same);
    const query = Float32Array.from([1, 0.5, 1, 0, 0, 0, 0, 0]);
    const expected = [...Array.from({ length: 70 }, (_, index) => index + 1), ...Array.from({ length: 30 }, (_, index) => 301 + index)];
    expect(candidateIds(held, query, 100).sort((a, b) => a - b)).toEqual(expected);
  });

  it("breaks ties by row order among the rows above the sampled cut-off too", () => {
    const held = createVectorTable({ generation: 1, epoch: 1, dimensions: 8 }, false);
    const level = (third: number) => Float32Array.from([1, 0.5, third, 0, 0, 0, 0, 0]);
    // Every 17th row of the first 850 is one of 50 best, every 17th + 1 one of 200 alike, the rest worse:
    // 250 rows exceed the sample's cut-off, and 100 are wanted: the 50 best and the first 50 alike.
    const best: number[] = [];
    const alike: number[] = [];
    for (let id = 1; id <= 4_250; id++) {
      const kind = id <= 850 && id % 17 === 0 ? "best" : (id <= 3_400 && id % 17 === 1) ? "alike" : "worse";
      if (kind === "best") best.push(id);
      if (kind === "alike") alike.push(id);
      appendVector(held, id, level(kind === "best" ? 0.8 : kind === "alike" ? 0.4 : 0));
    }
    expect([best.length, alike.length]).toEqual([50, 200]);
    const found = candidateIds(held, level(1), 100).sort((a, b) => a - b);
    expect(found).toEqual([...best, ...alike.slice(0, 50)].sort((a, b) => a - b));
  });
});

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

describe("createVectorTable's room", () => {
  it("holds the rows it was made for in the columns it started with, and ranks as a table grown row by row", () => {
    const random = seededRandom(7);
    const vectors = Array.from({ length: 500 }, () => sparseVector(random, 300));
    const state = { generation: 1, epoch: 1, dimensions: DIMENSIONS };
    const sized = createVectorTable(state, false, vectors.length);
    const { columns } = sized;
    const grown = createVectorTable(state, false);
    vectors.forEach((vector, index) => {
      appendVector(sized, index + 1, vector);
      appendVector(grown, index + 1, vector);
    });
    expect(sized.columns === columns, "the columns it started with").toBe(true);
    expect(sized.capacity).toBeLessThan(vectors.length + 16);
    const query = sparseVector(random, 40);
    expect(candidateIds(sized, query, 100, 30)).toEqual(candidateIds(grown, query, 100, 30));
    for (let id = vectors.length + 1; sized.count <= sized.capacity - 1; id++) appendVector(sized, id, vectors[0]!);
    expect(sized.columns === columns, "the columns it started with").toBe(true);
    appendVector(sized, sized.count + 1, vectors[0]!);
    expect(sized.columns === columns, "new columns once full").toBe(false);
  });
});
