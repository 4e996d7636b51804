// Deterministic synthetic chunks for the benchmark and the BM25-statistics experiment: English
// function words mixed with pseudo-words drawn from a Zipf distribution, about 800 characters
// each, so posting lists and document lengths look like prose without shipping any corpus.

const FUNCTION_WORDS = (
  "the of and to in is that for it as was with be by on not he this are or his from at which but have an they you were her " +
  "she there been one all we their has would when if so no will more can who out its about what than into some could them " +
  "other only time new may also these two first any like our should after most over such where between each"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo be da fe gu ho ji ki le ma no pa qui ra se tu ve wa xi yo ze bri cla dro fle gri plo stra tre".split(" ");

/** A seeded xorshift generator in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

/** The pseudo-vocabulary: `size` distinct words built from syllables, most frequent first. */
function vocabulary(size: number): string[] {
  const random = seededRandom(7);
  const words = new Set<string>();
  while (words.size < size) {
    const length = 2 + Math.floor(random() * 3);
    let word = "";
    for (let index = 0; index < length; index++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
    words.add(word);
  }
  return [...words];
}

const VOCABULARY = vocabulary(30_000);
// Zipf (s = 1) over the pseudo-vocabulary, shifted by 50 ranks: English content words follow
// the ~50 function words, so the commonest of them is in about one chunk in five, not in all.
const CUMULATIVE = (() => {
  const table = new Float64Array(VOCABULARY.length);
  let sum = 0;
  VOCABULARY.forEach((_, rank) => {
    sum += 1 / (rank + 51);
    table[rank] = sum;
  });
  return table.map((value) => value / sum);
})();

function zipfWord(random: () => number): string {
  const target = random();
  let low = 0;
  let high = CUMULATIVE.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (CUMULATIVE[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return VOCABULARY[low]!;
}

/** A sentence-like string of `count` words, about 40% function words. */
export function syntheticText(random: () => number, count: number): string {
  const words: string[] = [];
  for (let index = 0; index < count; index++) {
    words.push(random() < 0.4 ? FUNCTION_WORDS[Math.floor(random() * FUNCTION_WORDS.length)]! : zipfWord(random));
  }
  return words.join(" ");
}

export interface SyntheticChunk {
  source: string;
  title: string;
  text: string;
}

/** `total` synthetic chunks (~120 words each), in batches of `batchSize`, reproducible by seed. */
export function* noiseChunks(total: number, batchSize: number, seed = 42, prefix = "noise"): Generator<SyntheticChunk[]> {
  const random = seededRandom(seed);
  for (let start = 0; start < total; start += batchSize) {
    const batch: SyntheticChunk[] = [];
    for (let index = start; index < Math.min(total, start + batchSize); index++) {
      batch.push({ source: `${prefix}-${index}.md`, title: syntheticText(random, 4), text: syntheticText(random, 110 + Math.floor(random() * 30)) });
    }
    yield batch;
  }
}
