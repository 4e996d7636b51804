import { describe, expect, it } from "vitest";
import type { SearchHit } from "../ports/search-index.js";
import { fuseByReciprocalRank } from "./fusion.js";

const hits = (...ids: string[]): SearchHit[] => ids.map((id) => ({ chunkId: id, source: `${id}.md`, title: id, text: id, score: 0 }));

describe("fuseByReciprocalRank", () => {
  it("matches a worked example with k = 60 and equal weights", () => {
    // keyword: a b c; vector: c a d
    // a: 1/61 + 1/62 = 0.032522; c: 1/63 + 1/61 = 0.032266; b: 1/62 = 0.016129; d: 1/63 = 0.015873
    const fused = fuseByReciprocalRank(hits("a", "b", "c"), hits("c", "a", "d"), { k: 60, keywordWeight: 1, vectorWeight: 1 });
    expect(fused.map((hit) => hit.chunkId)).toEqual(["a", "c", "b", "d"]);
    expect(fused[0]!.fusedScore).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[1]).toMatchObject({ keywordRank: 3, vectorRank: 1 });
    expect(fused[3]).toMatchObject({ keywordRank: null, vectorRank: 3 });
  });

  it("lets weights and k change the order", () => {
    // keyword: a b; vector: b a. With the vector arm weighted 0.2 the keyword order wins.
    const weighted = fuseByReciprocalRank(hits("a", "b"), hits("b", "a"), { k: 10, keywordWeight: 1, vectorWeight: 0.2 });
    expect(weighted.map((hit) => hit.chunkId)).toEqual(["a", "b"]);
    expect(weighted[0]!.fusedScore).toBeCloseTo(1 / 11 + 0.2 / 12, 12);
    const vectorHeavy = fuseByReciprocalRank(hits("a", "b"), hits("b", "a"), { k: 10, keywordWeight: 0.2, vectorWeight: 1 });
    expect(vectorHeavy.map((hit) => hit.chunkId)).toEqual(["b", "a"]);
  });

  it("breaks ties by the keyword arm's order, then the vector arm's", () => {
    const fused = fuseByReciprocalRank(hits("x"), hits("y"), { k: 60, keywordWeight: 1, vectorWeight: 1 });
    expect(fused.map((hit) => hit.chunkId)).toEqual(["x", "y"]);
  });

  it("counts a chunk once per arm, at its best rank, and handles empty arms", () => {
    const fused = fuseByReciprocalRank(hits("a", "a", "b"), [], { k: 1, keywordWeight: 1, vectorWeight: 1 });
    expect(fused.map((hit) => [hit.chunkId, hit.fusedScore])).toEqual([["a", 1 / 2], ["b", 1 / 4]]);
    expect(fuseByReciprocalRank([], [], { k: 60, keywordWeight: 1, vectorWeight: 1 })).toEqual([]);
  });

  it("keeps every field of a hit, the document when the index read it", () => {
    const document = { id: "d1", title: "Doc", type: "text/markdown" };
    const [withDocument, without] = fuseByReciprocalRank([{ ...hits("a")[0]!, score: 2, document }], hits("b"), { k: 1, keywordWeight: 1, vectorWeight: 1 });
    expect(withDocument).toEqual({ chunkId: "a", source: "a.md", title: "a", text: "a", score: 2, document, fusedScore: 1 / 2, keywordRank: 1, vectorRank: null });
    expect(without).toEqual({ chunkId: "b", source: "b.md", title: "b", text: "b", score: 0, fusedScore: 1 / 2, keywordRank: null, vectorRank: 1 });
    expect("document" in without!).toBe(false);
  });
});
