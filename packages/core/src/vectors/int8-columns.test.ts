import { describe, expect, it } from "vitest";
import { createInt8Columns, ROW_STEP } from "./int8-columns.js";
import { seededRandom } from "../contract/seeded-random.js";

describe("Int8Columns", () => {
  it("rounds the capacity up to whole 16-row steps", () => {
    expect(createInt8Columns(8, 1).capacity).toBe(ROW_STEP);
    expect(createInt8Columns(8, 33).capacity).toBe(48);
  });

  it("sums weighted columns exactly as plain arithmetic does, at the int8 and int16 extremes", () => {
    const random = seededRandom(11);
    const dimensions = 64;
    const rows = 1_001; // not a multiple of 16: the last step reads zeroed padding
    const columns = createInt8Columns(dimensions, rows);
    for (let dimension = 0; dimension < dimensions; dimension++) {
      for (let row = 0; row < rows; row++) {
        columns.values[dimension * columns.capacity + row] = row % 97 === 0 ? -128 : Math.floor(random() * 255) - 127;
      }
    }
    const chosen = [0, 63, 5, 17, 33, 2, 40, 41, 9];
    const weights = [32_767, -32_767, 1, -1, 0, 12_345, -20_000, 7, 32_000];
    const sums = columns.weightedSum(chosen, weights, rows);
    for (let row = 0; row < rows; row++) {
      let expected = 0;
      chosen.forEach((dimension, index) => (expected += weights[index]! * columns.values[dimension * columns.capacity + row]!));
      expect(sums[row]).toBe(expected);
    }
    // The next call starts from zero, not from the previous sums.
    expect(columns.weightedSum([1], [2], rows)[3]).toBe(2 * columns.values[columns.capacity + 3]!);
  });

  it("scales the sums as float32 exactly as the plain loop does, -Infinity for a masked row", () => {
    const random = seededRandom(12);
    const rows = 1_003;
    const columns = createInt8Columns(16, rows);
    for (let index = 0; index < 16 * columns.capacity; index++) {
      columns.values[index] = (index % columns.capacity) % 7 === 0 ? 127 : Math.floor(random() * 255) - 127;
    }
    for (let row = 0; row < rows; row++) columns.scales[row] = row % 50 === 0 ? 0 : random() / 127;
    // Large weights: sums past 2^24, where rounding to float32 before multiplying would differ.
    const sums = Int32Array.from(columns.weightedSum([...Array(16).keys()], Array<number>(16).fill(32_767), rows));
    const scores = columns.scaledSums(rows);
    const expected = new Float32Array(rows);
    for (let row = 0; row < rows; row++) expected[row] = columns.scales[row] === 0 ? -Infinity : sums[row]! * columns.scales[row]!;
    expect(Array.from(scores.subarray(0, rows))).toEqual(Array.from(expected));
    expect(sums.some((sum) => Math.abs(sum) > 2 ** 24)).toBe(true);
  });
});
