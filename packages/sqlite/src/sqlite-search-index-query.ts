import { STOPWORDS, words } from "@parley/core";

/** Query words past this many are dropped: they bound the cost of a 32,000-character message. */
export const MAX_QUERY_TERMS = 64;

/**
 * Arbitrary user text as a safe FTS5 query: its unique words, each a double-quoted string (a
 * word holds only letters and digits, so no operator, quote or column filter can get through),
 * joined by OR. Stopwords are dropped unless the text has nothing else. Null when the text has
 * no words: such a query finds nothing.
 */
export function buildFtsQuery(text: string): string | null {
  const unique = [...new Set(words(text))];
  const content = unique.filter((word) => !STOPWORDS.has(word));
  const chosen = (content.length > 0 ? content : unique).slice(0, MAX_QUERY_TERMS);
  if (chosen.length === 0) return null;
  return chosen.map((word) => `"${word}"`).join(" OR ");
}
