import { queryWords, stem, words } from "@parley/core";

// The keyword terms of the PostgreSQL index: the core's words (docs/design.md §3), diacritics
// folded and Porter-stemmed as SQLite's `porter unicode61` tokenizer does, stopwords kept in the
// index (as FTS5 keeps them) and dropped from queries by the core's `queryWords` rule.

/** A word as the index stores it: diacritics folded, then stemmed. */
export function termOf(word: string): string {
  const folded = word.normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");
  return stem(folded);
}

/** What a chunk adds to the keyword index: weighted term frequencies and its length in tokens. */
export interface ChunkTerms {
  /** Term → title occurrences × titleWeight + body occurrences. */
  frequencies: Map<string, number>;
  /** Tokens in title and body together (BM25's document length, as FTS5 counts it). */
  length: number;
}

/** The terms of one chunk, its title weighing `titleWeight` times its body. */
export function chunkTerms(title: string, body: string, titleWeight: number): ChunkTerms {
  const frequencies = new Map<string, number>();
  const titleWords = words(title);
  const bodyWords = words(body);
  for (const word of titleWords) {
    const term = termOf(word);
    frequencies.set(term, (frequencies.get(term) ?? 0) + titleWeight);
  }
  for (const word of bodyWords) {
    const term = termOf(word);
    frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
  }
  return { frequencies, length: titleWords.length + bodyWords.length };
}

/**
 * The terms a keyword query scores, one per query word. Two words with one stem stay two
 * entries, as FTS5 scores `"refund" OR "refunds"`: the term then counts twice, as in SQLite.
 */
export function queryTerms(text: string): string[] {
  return queryWords(text).map(termOf);
}
