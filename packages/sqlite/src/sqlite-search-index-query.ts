import { stem } from "@parley/core";

/** The rarest words of a query are always kept, however common. */
const ALWAYS_KEPT = 3;

/**
 * Leaves out the commonest words once the query's posting lists would exceed `budget` rows.
 * FTS5 computes bm25 for every row that matches any word, so one word found in a fifth of a
 * large chatbot's chunks costs more than the rest of the query; its IDF is also the lowest, so
 * dropping it moves the ranking least. The ALWAYS_KEPT rarest words stay whatever they cost.
 * `documentFrequency` is null for a word FTS5 does not know under our stem (kept: it costs nothing).
 */
export function pruneCommonWords(queryTerms: string[], documentFrequency: (stemmed: string) => number | null, budget: number): string[] {
  const ranked = queryTerms
    .map((word, position) => ({ word, position, frequency: documentFrequency(stem(word)) ?? 0 }))
    .sort((a, b) => a.frequency - b.frequency || a.position - b.position);
  let postings = 0;
  const kept = ranked.filter(({ frequency }, index) => {
    postings += frequency;
    return index < ALWAYS_KEPT || postings <= budget;
  });
  return kept.sort((a, b) => a.position - b.position).map(({ word }) => word);
}

/**
 * Words as a safe FTS5 expression: each double-quoted (a word holds only letters and digits,
 * so no operator, quote or column filter can get through), joined by OR. Null for no words:
 * such a query finds nothing.
 */
export function buildFtsQuery(queryTerms: string[]): string | null {
  if (queryTerms.length === 0) return null;
  return queryTerms.map((word) => `"${word}"`).join(" OR ");
}

