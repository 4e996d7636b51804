import { describe, expect, it } from "vitest";
import { seededRandom } from "../contract/seeded-random.js";
import { appendVector, candidateIds, cosineSimilarity, createVectorTable } from "./vector-table.js";

const DIMENSIONS = 1_024;
const ROWS = 4_000;

/** A vector like the local embedder's: `nonZero` hashed dimensions, a few of them heavy. */
function sparseVector(random: () => number, nonZero: number): Float32Array {
  const vector = new Float32Array(DIMENSIONS);
  for (let index = 0; index < nonZero; index++) vector[Math.floor(random() * DIMENSIONS)] = (random() - 0.5) * (random() < 0.1 ? 6 : 1);
  return vector;
}

/** The same kind of vector as `sparseVector`, as (dimension, value) entries (a later one of a dimension wins). */
function sparseEntries(random: () => number, nonZero: number): Map<number, number> {
  const entries = new Map<number, number>();
  for (let index = 0; index < nonZero; index++) entries.set(Math.floor(random() * DIMENSIONS), (random() - 0.5) * (random() < 0.1 ? 6 : 1));
  return entries;
}

/** Cosine similarity of sparse entries with a dense vector, in float32 as the table stores them. */
function sparseCosine(entries: Map<number, number>, dense: Float32Array): number {
  let dot = 0;
  let norm = 0;
  for (const [dimension, value] of entries) {
    const stored = Math.fround(value);
    dot += stored * dense[dimension]!;
    norm += stored * stored;
  }
  let denseNorm = 0;
  for (const value of dense) denseNorm += value * value;
  return norm === 0 || denseNorm === 0 ? 0 : dot / Math.sqrt(norm * denseNorm);
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

describe("candidateIds for a sparse query", () => {
  it("chooses `keep` candidates by int8 cosine over all its dimensions that hold the exact best of every row", () => {
    const random = seededRandom(3);
    const { held, vectors } = table(random);
    const everyId = vectors.map((_, index) => index + 1);
    let kept = 0;
    const queries = 40;
    for (let query = 0; query < queries; query++) {
      const vector = sparseVector(random, 80);
      const narrow = candidateIds(held, vector, 100, 30);
      expect(narrow).toHaveLength(30);
      // The 20 an exact scan of every row would return, found among the 30.
      const best = exactBest(everyId, vectors, vector, 20);
      kept += best.filter((id) => narrow.includes(id)).length;
    }
    expect(kept / (queries * 20)).toBeGreaterThanOrEqual(0.999);
  });

  it("on a table past the one pass's 24 MiB, narrows the first pass's candidates to `keep` holding the exact best of them", () => {
    const random = seededRandom(5);
    // 25,000 rows of 1,024 int8 values: past the one pass's bytes. Kept sparse here, as index and value lists.
    const rows = Array.from({ length: 25_000 }, () => sparseEntries(random, 300));
    const held = createVectorTable({ generation: 1, epoch: 1, dimensions: DIMENSIONS }, false, rows.length);
    const scratch = new Float32Array(DIMENSIONS);
    rows.forEach((entries, index) => {
      for (const [dimension, value] of entries) scratch[dimension] = value;
      appendVector(held, index + 1, scratch);
      scratch.fill(0);
    });
    let kept = 0;
    const queries = 20;
    for (let query = 0; query < queries; query++) {
      const vector = sparseVector(random, 80);
      const wide = candidateIds(held, vector, 100);
      const narrow = candidateIds(held, vector, 100, 30);
      expect(narrow).toHaveLength(30);
      expect(wide).toEqual(expect.arrayContaining(narrow));
      // The 20 a search would return from all 100, found among the 30.
      const exact = (id: number) => sparseCosine(rows[id - 1]!, vector);
      const best = [...wide].sort((a, b) => exact(b) - exact(a) || a - b).slice(0, 20);
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
