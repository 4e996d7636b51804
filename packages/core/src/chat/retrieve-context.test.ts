import { describe, expect, it } from "vitest";
import type { FusedHit } from "../retrieval/fusion.js";
import { selectContext } from "./retrieve-context.js";

const hit = (id: string, text: string, title = `Title ${id}`): FusedHit => ({
  chunkId: id, source: `${id}.md`, title, text, score: 0, fusedScore: 1, keywordRank: 1, vectorRank: null,
});

describe("selectContext", () => {
  it("keeps the best five chunks", () => {
    const chosen = selectContext(["a", "b", "c", "d", "e", "f"].map((id) => hit(id, `text ${id}`)), { maxChunks: 5, contextTokenBudget: 2000 });
    expect(chosen.map((chunk) => chunk.text)).toEqual(["text a", "text b", "text c", "text d", "text e"]);
  });

  it("stays within the token budget, skipping a chunk that does not fit for a smaller one further down", () => {
    const chosen = selectContext([hit("a", "x".repeat(300)), hit("b", "y".repeat(300)), hit("c", "z".repeat(50))], {
      maxChunks: 5,
      contextTokenBudget: 100, // about 400 characters
    });
    expect(chosen.map((chunk) => chunk.text[0])).toEqual(["x", "z"]);
  });

  it("cuts a first chunk that alone exceeds the budget, and names a chunk by its source when it has no title", () => {
    const [only] = selectContext([hit("a", "x".repeat(1000), "  ")], { maxChunks: 5, contextTokenBudget: 50 });
    expect(only!.title).toBe("a.md");
    expect(only!.title.length + only!.text.length).toBe(200);
  });
});
