import { describe, expect, it } from "vitest";
import { MAX_QUERY_TERMS, queryWords } from "@parley/core";
import { buildFtsQuery, pruneCommonWords } from "./sqlite-search-index-query.js";

describe("FTS5 query building", () => {
  it("quotes each unique word and joins them with OR, dropping stopwords", () => {
    expect(buildFtsQuery(queryWords('What is the "refund" policy? refund* NEAR(x) AND OR NOT'))).toBe(
      '"refund" OR "policy" OR "near" OR "x"',
    );
  });

  it("keeps stopwords when the text has nothing else", () => {
    expect(queryWords("Who are you?")).toEqual(["who", "are", "you"]);
  });

  it("finds no words in punctuation, emoji, NUL bytes or blank text", () => {
    for (const text of ["", "   ", "'; --", "🙂🙂", "\u0000\u0000", "***", '""']) expect(buildFtsQuery(queryWords(text))).toBeNull();
  });

  it("lets no FTS5 syntax through: every term is letters and digits inside quotes", () => {
    const query = buildFtsQuery(queryWords("title:x {title body}: y col:* -z ^w \"a b\" 'c' (d) e+f 1=1"))!;
    for (const term of query.split(" OR ")) expect(term).toMatch(/^"[\p{L}\p{N}]+"$/u);
  });

  it("bounds the number of words of a huge message", () => {
    const words = queryWords(Array.from({ length: 5_000 }, (_, index) => `word${index}`).join(" "));
    expect(words).toHaveLength(MAX_QUERY_TERMS);
    expect(words[0]).toBe("word0");
  });

  it("prunes the commonest words past the posting budget, keeping the three rarest and the order", () => {
    const frequency: Record<string, number> = { cell: 5_000, patient: 9_000, zebrafish: 12, notch: 40, signal: 2_000, risk: 7_000 };
    const kept = pruneCommonWords(["cell", "patient", "zebrafish", "notch", "signal", "risk", "unknownword"], (term) => frequency[term] ?? null, 6_000);
    // unknownword (0), zebrafish (12), notch (40) always; signal fits (2,052); cell would reach 7,052.
    expect(kept).toEqual(["zebrafish", "notch", "signal", "unknownword"]);
    expect(pruneCommonWords(["cell", "patient", "risk"], (term) => frequency[term] ?? null, 10)).toEqual(["cell", "patient", "risk"]);
  });

});
