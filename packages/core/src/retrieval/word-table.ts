import { MAX_WORD_LENGTH, words } from "./tokenizer.js";

// The embedder's memory of the words it has seen, in flat typed arrays. Its first version, a
// Map from word to an object holding small arrays, spent most of each text on cache misses: a
// lookup and three pointers to follow per word. Here a word is found by open addressing on two
// 32-bit FNV-1a hashes of its letters, computed while scanning the text (no string is made for a
// word already known), and its features sit next to each other in one pool.

const HIGH_SEED = 0x811c9dc5;
const HIGH_PRIME = 0x01000193;
const LOW_SEED = 0x6c8e9cf5;
const LOW_PRIME = 0x01000197;
const SLOTS = 2 ** 18;
/** Words kept before the table starts afresh, between texts (one text may grow it further). */
const MAX_WORDS = (SLOTS * 3) / 4;
const NON_ASCII = /\P{ASCII}/u;

/**
 * Features of a word as signed buckets: bucket b with a plus sign is 2b, with a minus sign 2b + 1.
 * An empty list drops the word (a stopword).
 */
export type FeaturesOf = (word: string) => number[];

/** The distinct words of a text with their counts, as slots of the table, in first-seen order. */
export interface CountedWords {
  slots: Int32Array;
  length: number;
}

/** Per slot: the word's two hashes, 1 + its first feature in the pool (0: empty slot), its number of features, and the text that last counted it with its count there. */
function emptySlots(size: number) {
  return {
    highs: new Int32Array(size),
    lows: new Int32Array(size),
    starts: new Int32Array(size),
    lengths: new Int32Array(size),
    stamps: new Int32Array(size),
    counts: new Int32Array(size),
  };
}

/**
 * Words seen so far, each with its signed features (computed once by `featuresOf`), and the
 * counting of a text's words against them. Two distinct words are confused only if both 32-bit
 * hashes collide, about once in 10^10 texts' worth of vocabularies of 100,000 words.
 */
export function createWordTable(featuresOf: FeaturesOf) {
  let size = SLOTS;
  let { highs, lows, starts, lengths, stamps, counts } = emptySlots(size);
  let pool = new Int32Array(2 ** 16);
  let poolLength = 0;
  let wordCount = 0;
  let stamp = 0;
  const counted: CountedWords = { slots: new Int32Array(1024), length: 0 };

  /** Back to an empty table of the base size, between texts. */
  const reset = () => {
    if (size !== SLOTS) {
      size = SLOTS;
      ({ highs, lows, starts, lengths, stamps, counts } = emptySlots(size));
    } else {
      starts.fill(0);
      stamps.fill(0);
    }
    poolLength = 0;
    wordCount = 0;
  };

  const probe = (high: number, low: number): number => {
    let slot = high & (size - 1);
    while (starts[slot] !== 0 && (highs[slot] !== high || lows[slot] !== low)) slot = (slot + 1) & (size - 1);
    return slot;
  };

  /** Twice the slots, every word kept (a text with more distinct words than the table holds). */
  const grow = () => {
    const old = { highs, lows, starts, lengths, stamps, counts };
    size *= 2;
    ({ highs, lows, starts, lengths, stamps, counts } = emptySlots(size));
    const moved = new Map<number, number>();
    old.starts.forEach((start, slot) => {
      if (start === 0) return;
      const target = probe(old.highs[slot]!, old.lows[slot]!);
      highs[target] = old.highs[slot]!;
      lows[target] = old.lows[slot]!;
      starts[target] = start;
      lengths[target] = old.lengths[slot]!;
      stamps[target] = old.stamps[slot]!;
      counts[target] = old.counts[slot]!;
      moved.set(slot, target);
    });
    for (let index = 0; index < counted.length; index++) counted.slots[index] = moved.get(counted.slots[index]!)!;
  };

  /** The slot of the word `text.slice(from, to)` with hashes (high, low), added if new. */
  const slotOf = (high: number, low: number, text: string, from: number, to: number): number => {
    let slot = probe(high, low);
    if (starts[slot] !== 0) return slot;
    if (wordCount >= (size * 3) / 4) {
      grow();
      slot = probe(high, low);
    }
    const features = featuresOf(text.slice(from, to));
    if (poolLength + features.length > pool.length) {
      const grown = new Int32Array(Math.max(pool.length * 2, poolLength + features.length));
      grown.set(pool.subarray(0, poolLength));
      pool = grown;
    }
    pool.set(features, poolLength);
    highs[slot] = high;
    lows[slot] = low;
    starts[slot] = poolLength + 1;
    lengths[slot] = features.length;
    poolLength += features.length;
    wordCount++;
    return slot;
  };

  const count = (slot: number) => {
    if (lengths[slot] === 0) return;
    if (stamps[slot] !== stamp) {
      stamps[slot] = stamp;
      counts[slot] = 0;
      if (counted.length === counted.slots.length) {
        const grown = new Int32Array(counted.slots.length * 2);
        grown.set(counted.slots);
        counted.slots = grown;
      }
      counted.slots[counted.length++] = slot;
    }
    counts[slot]!++;
  };

  /** Counts the words of ASCII text in one pass over its characters: letters and digits, as `words()` does. */
  const countAscii = (text: string) => {
    const lower = text.toLowerCase();
    let start = -1;
    let high = 0;
    let low = 0;
    for (let index = 0; index <= lower.length; index++) {
      const code = index < lower.length ? lower.charCodeAt(index) : 32;
      if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) {
        if (start < 0) {
          start = index;
          high = HIGH_SEED;
          low = LOW_SEED;
        }
        if (index - start < MAX_WORD_LENGTH) {
          high = Math.imul(high ^ code, HIGH_PRIME);
          low = Math.imul(low ^ code, LOW_PRIME);
        }
      } else if (start >= 0) {
        count(slotOf(high, low, lower, start, Math.min(index, start + MAX_WORD_LENGTH)));
        start = -1;
      }
    }
  };

  return {
    /** The pool of signed features; a word's are at `start(slot)` for `length(slot)`. */
    get pool() {
      return pool;
    },
    start: (slot: number) => starts[slot]! - 1,
    length: (slot: number) => lengths[slot]!,
    count: (slot: number) => counts[slot]!,

    /** The distinct words of `text` with their counts; valid until the next call. */
    countWords(text: string): CountedWords {
      if (wordCount >= MAX_WORDS) reset(); // bounded memory; refills as needed
      stamp++;
      counted.length = 0;
      if (!NON_ASCII.test(text)) {
        countAscii(text);
      } else {
        for (const word of words(text)) {
          let high = HIGH_SEED;
          let low = LOW_SEED;
          for (let index = 0; index < word.length; index++) {
            high = Math.imul(high ^ word.charCodeAt(index), HIGH_PRIME);
            low = Math.imul(low ^ word.charCodeAt(index), LOW_PRIME);
          }
          count(slotOf(high, low, word, 0, word.length));
        }
      }
      return counted;
    },
  };
}
