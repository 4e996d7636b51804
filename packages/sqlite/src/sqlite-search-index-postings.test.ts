import { seededRandom } from "@parley/core/contract";
import { describe, expect, it } from "vitest";
import { topK } from "./sqlite-search-index-postings.js";

describe("topK", () => {
  it("returns the k best rows by score, ties by id, as a full sort does", () => {
    const random = seededRandom(5);
    const rows = 5_000;
    // Few distinct scores, so many ties straddle the k-th place.
    const scores = Float64Array.from({ length: rows }, () => Math.floor(random() * 40) / 8);
    const ids = Float64Array.from({ length: rows }, (_, row) => ((row * 7_919) % rows) + 1);
    const touched = Int32Array.from({ length: rows / 2 }, (_, index) => (index * 2 + (index % 3)) % rows);
    for (const k of [1, 20, 100]) {
      const expected = [...new Set(touched)]
        .sort((a, b) => scores[b]! - scores[a]! || ids[a]! - ids[b]!)
        .slice(0, k)
        .map((row) => ({ id: ids[row]!, score: scores[row]! }));
      expect(topK(Int32Array.from(new Set(touched)), scores, ids, k)).toEqual(expected);
    }
  });
});
