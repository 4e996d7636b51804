import { stemmer } from "stemmer";

// Word characters as SQLite's unicode61 tokenizer sees them (letters and numbers), so that
// the in-memory index, the local embedder and the FTS5 query builder agree on what a word is.
const WORD = /[\p{L}\p{N}]+/gu;

/** Words longer than this are cut: nothing real is that long, and it bounds hostile input. */
export const MAX_WORD_LENGTH = 64;

/**
 * Common English function words. They carry no topic, so the embedder skips them and the
 * keyword query drops them (BM25 gives them almost no weight, yet their long posting lists
 * dominate the cost of an FTS5 query).
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below between both but by " +
    "can could did do does doing down during each few for from further had has have having he her here hers herself him " +
    "himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other " +
    "our ours ourselves out over own same she should so some such than that the their theirs them themselves then there " +
    "these they this those through to too under until up very was we were what when where which while who whom why will " +
    "with would you your yours yourself yourselves"
  ).split(" "),
);

/** The lower-cased words of a text, in order (diacritics kept, NUL and punctuation dropped). */
export function words(text: string): string[] {
  const found = text.normalize("NFKC").toLowerCase().match(WORD);
  if (found === null) return [];
  return found.map((word) => (word.length > MAX_WORD_LENGTH ? word.slice(0, MAX_WORD_LENGTH) : word));
}

/** Porter stem of a lower-cased word; words with non-ASCII letters are kept as they are. */
export function stem(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** The stemmed content words of a text (stopwords removed), in order, with repeats. */
export function contentTerms(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) {
    if (!STOPWORDS.has(word)) terms.push(stem(word));
  }
  return terms;
}

/** Query words past this many are dropped: they bound the cost of a 32,000-character message. */
export const MAX_QUERY_TERMS = 64;

/**
 * The words of a user's text that a keyword search looks for: unique, stopwords dropped unless
 * the text has nothing else, at most MAX_QUERY_TERMS; each made only of letters and digits. Every
 * SearchIndex adapter uses this one rule, so they agree on what a query asks.
 */
export function queryWords(text: string): string[] {
  const unique = [...new Set(words(text))];
  const content = unique.filter((word) => !STOPWORDS.has(word));
  return (content.length > 0 ? content : unique).slice(0, MAX_QUERY_TERMS);
}

/** Counts of each item, in first-seen order. */
export function countTerms(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}
