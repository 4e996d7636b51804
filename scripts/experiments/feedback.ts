// Prototype harness, not shipped: offline retrieval ideas on a BEIR collection, all in memory
// so a grid runs in seconds. BM25 mirrors FTS5's (weighted tf over title/body, one saturation
// over the whole row, IDF floored at 1e-6; the `stemmer` package stands in for FTS5's porter),
// the vector arm is the local embedder with exact cosine, fusion is the core's weighted RRF.
// Tune on the training judgments only (experiments: rocchio, rm3, bm25, scorefusion, passage,
// embedder, idfquery, combo, combo3, combo4, final, cost; comma-separated, default all):
//   node --conditions=source --import tsx scripts/experiments/feedback.ts <BEIR folder> --split train --experiment NAME
import { parseArgs } from "node:util";
import { createLocalEmbedder, fuseByReciprocalRank, stem, STOPWORDS, words, type SearchHit } from "@parley/core";
import { loadBeir } from "../lib/beir.js";
import { mean, ndcgAt, pairedRandomizationTest, recallAt } from "../lib/metrics.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { split: { type: "string", default: "train" }, experiment: { type: "string", default: "all" } },
});
const folder = positionals[0]!;
const collection = loadBeir(folder, values.split === "train" ? "qrels-train-evidence.tsv" : "qrels-test.tsv");
const judged = [...collection.qrels.keys()].filter((id) => collection.queries.has(id));
const documents = collection.documents;
const count = documents.length;
console.log(`${count} documents, ${judged.length} judged queries (${values.split})`);

// --- BM25 as FTS5 computes it ----------------------------------------------------------------
interface Posting { document: number; title: number; body: number }
const postings = new Map<string, Posting[]>();
const rowLength = new Float64Array(count);
documents.forEach((document, index) => {
  const title = words(document.title).map(stem);
  const body = words(document.text).map(stem);
  rowLength[index] = title.length + body.length;
  const local = new Map<string, Posting>();
  for (const term of title) {
    const entry = local.get(term) ?? { document: index, title: 0, body: 0 };
    entry.title++;
    local.set(term, entry);
  }
  for (const term of body) {
    const entry = local.get(term) ?? { document: index, title: 0, body: 0 };
    entry.body++;
    local.set(term, entry);
  }
  for (const [term, entry] of local) {
    if (!postings.has(term)) postings.set(term, []);
    postings.get(term)!.push(entry);
  }
});
const averageLength = rowLength.reduce((sum, value) => sum + value, 0) / count;
const idfOf = (term: string) => {
  const n = postings.get(term)?.length ?? 0;
  const idf = Math.log((count - n + 0.5) / (n + 0.5));
  return idf <= 0 ? 1e-6 : idf;
};

/** The query's terms as Parley's keyword arm builds them: unique words, stopwords dropped, stemmed. */
function queryTerms(text: string): string[] {
  const unique = [...new Set(words(text))];
  const content = unique.filter((word) => !STOPWORDS.has(word));
  return (content.length > 0 ? content : unique).slice(0, 64).map(stem);
}

interface Bm25Options { k1: number; b: number; titleWeight: number }
const DEFAULT_BM25: Bm25Options = { k1: 1.2, b: 0.75, titleWeight: 3 };

/** Full BM25 scores over the collection for weighted terms (weight 1 = FTS5's query). */
function bm25Scores(terms: Map<string, number>, options: Bm25Options = DEFAULT_BM25): Float64Array {
  const scores = new Float64Array(count);
  for (const [term, weight] of terms) {
    const list = postings.get(term);
    if (list === undefined) continue;
    const idf = idfOf(term) * weight;
    for (const posting of list) {
      const frequency = options.titleWeight * posting.title + posting.body;
      const norm = options.k1 * (1 - options.b + (options.b * rowLength[posting.document]!) / averageLength);
      scores[posting.document]! += (idf * frequency * (options.k1 + 1)) / (frequency + norm);
    }
  }
  return scores;
}
const termWeights = (terms: string[]) => {
  const map = new Map<string, number>();
  for (const term of terms) map.set(term, (map.get(term) ?? 0) + 1);
  return map;
};

function topOf(scores: ArrayLike<number>, k: number, positiveOnly = true): { document: number; score: number }[] {
  const found: { document: number; score: number }[] = [];
  for (let index = 0; index < scores.length; index++) {
    const score = scores[index]!;
    if (positiveOnly && score <= 0) continue;
    found.push({ document: index, score });
  }
  found.sort((a, b) => b.score - a.score || a.document - b.document);
  return found.slice(0, k);
}
const asHits = (ranked: { document: number; score: number }[]): SearchHit[] =>
  ranked.map(({ document, score }) => ({ chunkId: String(document), source: documents[document]!.id, title: "", text: "", score }));

// --- local embedder: documents and queries -----------------------------------------------------
const embedder = createLocalEmbedder();
const started = performance.now();
const documentVectors = await embedder.embed(documents.map((document) => `${document.title}\n${document.text}`), "document");
console.log(`embedded ${count} documents in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const dimensions = embedder.dimensions;
const matrix = new Float32Array(count * dimensions);
documentVectors.forEach((vector, index) => matrix.set(vector, index * dimensions));

function cosineScores(query: Float32Array | Float64Array): Float64Array {
  const scores = new Float64Array(count);
  for (let document = 0; document < count; document++) {
    let dot = 0;
    const offset = document * dimensions;
    for (let dimension = 0; dimension < dimensions; dimension++) dot += matrix[offset + dimension]! * query[dimension]!;
    scores[document] = dot;
  }
  return scores;
}
const normalized = (vector: Float64Array) => {
  let sum = 0;
  for (const value of vector) sum += value * value;
  const scale = sum === 0 ? 0 : 1 / Math.sqrt(sum);
  return vector.map((value) => value * scale);
};

// --- per-query base runs -----------------------------------------------------------------------
interface Base { terms: string[]; keywordScores: Float64Array; keyword: { document: number; score: number }[]; queryVector: Float32Array; vector: { document: number; score: number }[] }
const base = new Map<string, Base>();
for (const queryId of judged) {
  const text = collection.queries.get(queryId)!;
  const terms = queryTerms(text);
  const keywordScores = bm25Scores(termWeights(terms));
  const [queryVector] = await embedder.embed([text], "query");
  base.set(queryId, {
    terms,
    keywordScores,
    keyword: topOf(keywordScores, 100),
    queryVector: queryVector!,
    vector: topOf(cosineScores(queryVector!), 100, false),
  });
}

type Ranking = (queryId: string) => string[];
const scoresOf = (ranking: Ranking) => judged.map((queryId) => ndcgAt(ranking(queryId), collection.qrels.get(queryId)!, 10));
const keywordRanking: Ranking = (queryId) => base.get(queryId)!.keyword.map(({ document }) => documents[document]!.id);
const keywordNdcg = scoresOf(keywordRanking);
const report = (name: string, ranking: Ranking) => {
  const ndcg = scoresOf(ranking);
  const recall = mean(judged.map((queryId) => recallAt(ranking(queryId), collection.qrels.get(queryId)!, 100)));
  const test = pairedRandomizationTest(ndcg, keywordNdcg, 20_000);
  const value = mean(ndcg);
  console.log(`${name}\tnDCG@10=${value.toFixed(4)}\tΔ=${(value - mean(keywordNdcg)).toFixed(4)}\tp=${test.pValue.toFixed(3)}\tR@100=${recall.toFixed(4)}`);
  return value;
};
const fused = (keyword: SearchHit[], vector: SearchHit[], k: number, vectorWeight: number) =>
  fuseByReciprocalRank(keyword, vector, { k, keywordWeight: 1, vectorWeight }).map((hit) => hit.source);

report("keyword (bm25, title 3)", keywordRanking);
console.log(`keyword: ${keywordNdcg.filter((score) => score === 1).length} queries perfect, ${keywordNdcg.filter((score) => score === 0).length} at zero, ${keywordNdcg.filter((score) => score > 0 && score < 1).length} between`);
report("vector (local)", (queryId) => base.get(queryId)!.vector.map(({ document }) => documents[document]!.id));
report("hybrid k=5 v=0.1 (20+20)", (queryId) =>
  fused(asHits(base.get(queryId)!.keyword.slice(0, 20)), asHits(base.get(queryId)!.vector.slice(0, 20)), 5, 0.1));

const experiment = values.experiment;
const selected = new Set(experiment.split(","));
const run = (name: string) => experiment === "all" || selected.has(name);

// 1. Rocchio in embedding space: the vector arm's query moves toward the top keyword hits.
if (run("rocchio")) {
  const results: { name: string; value: number }[] = [];
  for (const m of [3, 5, 10]) {
    for (const alpha of [0.5, 1, 2, 4]) {
      const arm = new Map<string, { document: number; score: number }[]>();
      for (const queryId of judged) {
        const run = base.get(queryId)!;
        const centroid = new Float64Array(dimensions);
        const top = run.keyword.slice(0, m);
        for (const { document } of top) {
          const offset = document * dimensions;
          for (let dimension = 0; dimension < dimensions; dimension++) centroid[dimension]! += matrix[offset + dimension]! / Math.max(1, top.length);
        }
        const query = new Float64Array(dimensions);
        for (let dimension = 0; dimension < dimensions; dimension++) query[dimension] = run.queryVector[dimension]! + alpha * centroid[dimension]!;
        arm.set(queryId, topOf(cosineScores(normalized(query)), 100, false));
      }
      for (const k of [5, 10, 20, 60]) {
        for (const vectorWeight of [0.1, 0.2, 0.3, 0.5, 0.7, 1]) {
          for (const depth of [20]) {
            const name = `rocchio m=${m} a=${alpha} k=${k} v=${vectorWeight} depth=${depth}`;
            const value = mean(scoresOf((queryId) => fused(asHits(base.get(queryId)!.keyword.slice(0, depth)), asHits(arm.get(queryId)!.slice(0, depth)), k, vectorWeight)));
            results.push({ name, value });
          }
        }
      }
      report(`rocchio m=${m} a=${alpha} alone`, (queryId) => arm.get(queryId)!.map(({ document }) => documents[document]!.id));
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 12)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

// 3. BM25 k1 / b / title weight.
if (run("bm25")) {
  const results: { name: string; value: number }[] = [];
  for (const k1 of [0.6, 0.9, 1.2, 1.5, 2]) {
    for (const b of [0.3, 0.5, 0.75, 0.9]) {
      for (const titleWeight of [2, 3, 5]) {
        const ranking: Ranking = (queryId) => topOf(bm25Scores(termWeights(base.get(queryId)!.terms), { k1, b, titleWeight }), 10).map(({ document }) => documents[document]!.id);
        results.push({ name: `bm25 k1=${k1} b=${b} title=${titleWeight}`, value: mean(scoresOf(ranking)) });
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 12)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

/** Min-max normalised scores of a ranked list, by document. */
function minMax(ranked: { document: number; score: number }[]): Map<number, number> {
  const scores = ranked.map(({ score }) => score);
  const low = Math.min(...scores);
  const high = Math.max(...scores);
  return new Map(ranked.map(({ document, score }) => [document, high > low ? (score - low) / (high - low) : 1]));
}

// 5. Convex combination of min-max normalised scores over the union of the two arms' top lists.
if (run("scorefusion")) {
  const results: { name: string; value: number }[] = [];
  for (const depth of [20, 100]) {
    for (const weight of [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4]) {
      const ranking: Ranking = (queryId) => {
        const run = base.get(queryId)!;
        const keyword = minMax(run.keyword.slice(0, depth));
        const vector = minMax(run.vector.slice(0, depth));
        const union = new Set([...keyword.keys(), ...vector.keys()]);
        return [...union]
          .map((document) => ({ document, score: (1 - weight) * (keyword.get(document) ?? 0) + weight * (vector.get(document) ?? 0) }))
          .sort((a, b) => b.score - a.score || a.document - b.document)
          .map(({ document }) => documents[document]!.id);
      };
      results.push({ name: `score fusion depth=${depth} vector=${weight}`, value: mean(scoresOf(ranking)) });
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 8)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

// Passage evidence: each candidate's best sentence scored by BM25 (collection IDF, sentence
// length against the average sentence), interpolated with the document's own BM25.
if (run("passage")) {
  const sentencesOf = documents.map((document) =>
    document.text.split(/(?<=[.!?])\s+(?=[A-Z0-9(])/).map((sentence) => words(sentence).map(stem)),
  );
  let sentenceTotal = 0;
  let sentenceCount = 0;
  for (const sentences of sentencesOf) for (const sentence of sentences) { sentenceTotal += sentence.length; sentenceCount++; }
  const averageSentence = sentenceTotal / sentenceCount;
  console.log(`${sentenceCount} sentences, ${averageSentence.toFixed(1)} tokens on average`);
  const passageScore = (terms: string[], document: number, window: number, k1: number, b: number) => {
    const sentences = sentencesOf[document]!;
    let best = 0;
    for (let start = 0; start < sentences.length; start++) {
      const tokens = sentences.slice(start, start + window).flat();
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      let score = 0;
      for (const term of terms) {
        const frequency = counts.get(term) ?? 0;
        if (frequency === 0) continue;
        const norm = k1 * (1 - b + (b * tokens.length) / (averageSentence * window));
        score += (idfOf(term) * frequency * (k1 + 1)) / (frequency + norm);
      }
      best = Math.max(best, score);
    }
    return best;
  };
  const results: { name: string; value: number }[] = [];
  for (const window of [1, 2, 3]) {
    const cache = new Map<string, Map<number, number>>();
    for (const queryId of judged) {
      const run = base.get(queryId)!;
      cache.set(queryId, new Map(run.keyword.map(({ document }) => [document, passageScore(run.terms, document, window, 1.2, 0.75)])));
    }
    report(`passage window=${window} alone (rerank of keyword top 100)`, (queryId) =>
      [...cache.get(queryId)!].sort((a, b) => b[1] - a[1]).map(([document]) => documents[document]!.id));
    for (const depth of [20, 50, 100]) {
      for (const weight of [0.1, 0.2, 0.3, 0.5, 0.7]) {
        const ranking: Ranking = (queryId) => {
          const run = base.get(queryId)!;
          const top = run.keyword.slice(0, depth);
          const passages = cache.get(queryId)!;
          const maxDocument = top[0]?.score ?? 1;
          const maxPassage = Math.max(1e-9, ...top.map(({ document }) => passages.get(document)!));
          return top
            .map(({ document, score }) => ({ document, score: (1 - weight) * (score / maxDocument) + (weight * passages.get(document)!) / maxPassage }))
            .sort((a, b) => b.score - a.score || a.document - b.document)
            .map(({ document }) => documents[document]!.id);
        };
        results.push({ name: `passage window=${window} depth=${depth} weight=${weight}`, value: mean(scoresOf(ranking)) });
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 12)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

// 2. RM3: expansion terms from the top keyword hits (relevance model over their term
// distributions, each hit weighted by its normalised score), mixed with the original query and
// run again through BM25; either alone or fused with the original ranking by RRF.
if (run("rm3")) {
  const documentTerms = documents.map((document) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(`${document.title} ${document.text}`)) {
      if (STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
      const term = stem(word);
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const results: { name: string; value: number }[] = [];
  for (const m of [3, 5, 10]) {
    for (const expansion of [5, 10, 20]) {
      for (const originalWeight of [0.5, 0.7, 0.85]) {
        const expanded = new Map<string, { document: number; score: number }[]>();
        for (const queryId of judged) {
          const run = base.get(queryId)!;
          const top = run.keyword.slice(0, m);
          const total = top.reduce((sum, { score }) => sum + Math.exp(score - top[0]!.score), 0);
          const model = new Map<string, number>();
          for (const { document, score } of top) {
            const weight = Math.exp(score - top[0]!.score) / total;
            const { counts, length } = documentTerms[document]!;
            for (const [term, frequency] of counts) {
              if (postings.get(term)!.length < 2) continue;
              model.set(term, (model.get(term) ?? 0) + (weight * frequency) / length);
            }
          }
          const best = [...model].sort((a, b) => b[1] - a[1]).slice(0, expansion);
          const sum = best.reduce((acc, [, value]) => acc + value, 0) || 1;
          const weights = new Map<string, number>();
          const original = termWeights(run.terms);
          for (const [term, value] of original) weights.set(term, (originalWeight * value) / run.terms.length);
          for (const [term, value] of best) weights.set(term, (weights.get(term) ?? 0) + ((1 - originalWeight) * value) / sum);
          expanded.set(queryId, topOf(bm25Scores(weights), 100));
        }
        results.push({
          name: `rm3 m=${m} terms=${expansion} original=${originalWeight} alone`,
          value: mean(scoresOf((queryId) => expanded.get(queryId)!.map(({ document }) => documents[document]!.id))),
        });
        for (const k of [5, 20, 60]) {
          for (const weight of [0.3, 0.5, 1]) {
            results.push({
              name: `rm3 m=${m} terms=${expansion} original=${originalWeight} rrf k=${k} w=${weight}`,
              value: mean(scoresOf((queryId) => fused(asHits(base.get(queryId)!.keyword.slice(0, 20)), asHits(expanded.get(queryId)!.slice(0, 20)), k, weight))),
            });
          }
        }
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 12)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
  for (const row of results.filter((row) => row.name.endsWith("alone")).slice(0, 3)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

// 4. Local embedder variants: vector arm alone and its best RRF with the keyword arm.
if (run("embedder")) {
  const variants: [string, Parameters<typeof createLocalEmbedder>[0]][] = [
    ["words only", { ngramWeight: 0 }],
    ["n-grams 0.25", { ngramWeight: 0.25 }],
    ["n-grams 1", { ngramWeight: 1 }],
    ["n-grams 2", { ngramWeight: 2 }],
    ["n-grams 4-4", { ngramRange: [4, 4] }],
    ["n-grams 3-6", { ngramRange: [3, 6] }],
    ["2048 dims", { dimensions: 2048 }],
    ["4096 dims", { dimensions: 4096 }],
  ];
  for (const [name, options] of variants) {
    const variant = createLocalEmbedder(options);
    const width = variant.dimensions;
    const vectors = await variant.embed(documents.map((document) => `${document.title}\n${document.text}`), "document");
    const store = new Float32Array(count * width);
    vectors.forEach((vector, index) => store.set(vector, index * width));
    const arm = new Map<string, { document: number; score: number }[]>();
    for (const queryId of judged) {
      const [query] = await variant.embed([collection.queries.get(queryId)!], "query");
      const scores = new Float64Array(count);
      for (let document = 0; document < count; document++) {
        let dot = 0;
        const offset = document * width;
        for (let dimension = 0; dimension < width; dimension++) dot += store[offset + dimension]! * query![dimension]!;
        scores[document] = dot;
      }
      arm.set(queryId, topOf(scores, 100, false));
    }
    report(`embedder ${name} alone`, (queryId) => arm.get(queryId)!.map(({ document }) => documents[document]!.id));
    let best = { value: 0, label: "" };
    for (const k of [5, 10, 20]) {
      for (const weight of [0.1, 0.2, 0.3]) {
        const value = mean(scoresOf((queryId) => fused(asHits(base.get(queryId)!.keyword.slice(0, 20)), asHits(arm.get(queryId)!.slice(0, 20)), k, weight)));
        if (value > best.value) best = { value, label: `k=${k} v=${weight}` };
      }
    }
    console.log(`embedder ${name} best RRF ${best.label}\t${best.value.toFixed(4)}`);
  }
}

// 4b. IDF-weighted query vector (documents unchanged): Σ over the query's words of idf × the word's own vector.
if (run("idfquery")) {
  const arm = new Map<string, { document: number; score: number }[]>();
  for (const queryId of judged) {
    const unique = [...new Set(words(collection.queries.get(queryId)!))].filter((word) => !STOPWORDS.has(word));
    const vectors = await embedder.embed(unique, "query");
    const query = new Float64Array(dimensions);
    unique.forEach((word, index) => {
      const weight = idfOf(stem(word));
      for (let dimension = 0; dimension < dimensions; dimension++) query[dimension]! += weight * vectors[index]![dimension]!;
    });
    arm.set(queryId, topOf(cosineScores(normalized(query)), 100, false));
  }
  report("idf-weighted query alone", (queryId) => arm.get(queryId)!.map(({ document }) => documents[document]!.id));
  let best = { value: 0, label: "" };
  for (const k of [5, 10, 20, 60]) {
    for (const weight of [0.1, 0.2, 0.3, 0.5]) {
      const value = mean(scoresOf((queryId) => fused(asHits(base.get(queryId)!.keyword.slice(0, 20)), asHits(arm.get(queryId)!.slice(0, 20)), k, weight)));
      if (value > best.value) best = { value, label: `k=${k} v=${weight}` };
    }
  }
  console.log(`idf-weighted query best RRF ${best.label}\t${best.value.toFixed(4)}`);
}

/** Weighted RRF over any number of rankings (document lists), ties by first arrival. */
function fuseMany(arms: { ranked: { document: number }[]; weight: number }[], k: number): string[] {
  const scores = new Map<number, number>();
  for (const { ranked, weight } of arms) {
    ranked.forEach(({ document }, index) => scores.set(document, (scores.get(document) ?? 0) + weight / (k + index + 1)));
  }
  return [...scores].sort((a, b) => b[1] - a[1]).map(([document]) => documents[document]!.id);
}

// RM3 as the SearchIndex port allows it: a second keyword query made of the original words plus
// the top expansion words from the top hits (every word weight 1, as FTS5's OR query has),
// fused with the original keyword ranking (and optionally the vector arm) by RRF.
if (run("combo")) {
  const documentTerms = documents.map((document) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(`${document.title} ${document.text}`)) {
      if (STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
      const term = stem(word);
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const expandedRun = (queryId: string, m: number, expansion: number, minimumDf: number) => {
    const run = base.get(queryId)!;
    const top = run.keyword.slice(0, m);
    const model = new Map<string, number>();
    for (const { document } of top) {
      const { counts, length } = documentTerms[document]!;
      for (const [term, frequency] of counts) {
        if (minimumDf > 1 && postings.get(term)!.length < minimumDf) continue;
        model.set(term, (model.get(term) ?? 0) + frequency / length / top.length);
      }
    }
    const original = new Set(run.terms);
    const added = [...model].filter(([term]) => !original.has(term)).sort((a, b) => b[1] - a[1]).slice(0, expansion).map(([term]) => term);
    return topOf(bm25Scores(termWeights([...run.terms, ...added])), 100);
  };
  const results: { name: string; value: number }[] = [];
  for (const m of [3, 5, 10]) {
    for (const expansion of [3, 5, 10]) {
      for (const minimumDf of [1, 2]) {
        const expanded = new Map(judged.map((queryId) => [queryId, expandedRun(queryId, m, expansion, minimumDf)]));
        results.push({ name: `rm3u m=${m} terms=${expansion} df>=${minimumDf} alone`, value: mean(scoresOf((queryId) => expanded.get(queryId)!.map(({ document }) => documents[document]!.id))) });
        for (const k of [5, 20, 60]) {
          for (const weight of [0.3, 0.5, 1]) {
            for (const vectorWeight of [0, 0.1]) {
              results.push({
                name: `rm3u m=${m} terms=${expansion} df>=${minimumDf} k=${k} w=${weight} vector=${vectorWeight}`,
                value: mean(scoresOf((queryId) => fuseMany([
                  { ranked: base.get(queryId)!.keyword.slice(0, 20), weight: 1 },
                  { ranked: expanded.get(queryId)!.slice(0, 20), weight },
                  { ranked: base.get(queryId)!.vector.slice(0, 20), weight: vectorWeight },
                ], k))),
              });
            }
          }
        }
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 15)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
  for (const row of results.filter((row) => row.name.endsWith("alone")).slice(0, 3)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

/** RM3 with weighted terms: the original query keeps `originalWeight` of the mass. */
function rm3Run(queryId: string, m: number, expansion: number, originalWeight: number, documentTerms: { counts: Map<string, number>; length: number }[]) {
  const run = base.get(queryId)!;
  const top = run.keyword.slice(0, m);
  if (top.length === 0) return [];
  const total = top.reduce((sum, { score }) => sum + Math.exp(score - top[0]!.score), 0);
  const model = new Map<string, number>();
  for (const { document, score } of top) {
    const weight = Math.exp(score - top[0]!.score) / total;
    const { counts, length } = documentTerms[document]!;
    for (const [term, frequency] of counts) {
      if (postings.get(term)!.length < 2) continue;
      model.set(term, (model.get(term) ?? 0) + (weight * frequency) / length);
    }
  }
  const best = [...model].sort((a, b) => b[1] - a[1]).slice(0, expansion);
  const sum = best.reduce((acc, [, value]) => acc + value, 0) || 1;
  const weights = new Map<string, number>();
  for (const [term, value] of termWeights(run.terms)) weights.set(term, (originalWeight * value) / run.terms.length);
  for (const [term, value] of best) weights.set(term, (weights.get(term) ?? 0) + ((1 - originalWeight) * value) / sum);
  return topOf(bm25Scores(weights), 100);
}

// Three arms: keyword, weighted RM3 and a vector arm (plain, Rocchio-moved or IDF-weighted query).
if (run("combo3")) {
  const documentTerms = documents.map((document) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(`${document.title} ${document.text}`)) {
      if (STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
      const term = stem(word);
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const vectorArms = new Map<string, Map<string, { document: number; score: number }[]>>();
  vectorArms.set("plain", new Map(judged.map((queryId) => [queryId, base.get(queryId)!.vector])));
  const rocchio = new Map<string, { document: number; score: number }[]>();
  const idfArm = new Map<string, { document: number; score: number }[]>();
  for (const queryId of judged) {
    const run = base.get(queryId)!;
    const query = new Float64Array(dimensions);
    const top = run.keyword.slice(0, 5);
    for (let dimension = 0; dimension < dimensions; dimension++) query[dimension] = run.queryVector[dimension]!;
    for (const { document } of top) for (let dimension = 0; dimension < dimensions; dimension++) query[dimension]! += matrix[document * dimensions + dimension]! / top.length;
    rocchio.set(queryId, topOf(cosineScores(normalized(query)), 100, false));
    const unique = [...new Set(words(collection.queries.get(queryId)!))].filter((word) => !STOPWORDS.has(word));
    const vectors = await embedder.embed(unique, "query");
    const weighted = new Float64Array(dimensions);
    unique.forEach((word, index) => {
      const weight = idfOf(stem(word));
      for (let dimension = 0; dimension < dimensions; dimension++) weighted[dimension]! += weight * vectors[index]![dimension]!;
    });
    idfArm.set(queryId, topOf(cosineScores(normalized(weighted)), 100, false));
  }
  vectorArms.set("rocchio m=5 a=1", rocchio);
  vectorArms.set("idf query", idfArm);
  const results: { name: string; value: number }[] = [];
  for (const m of [3, 5, 10]) {
    for (const originalWeight of [0.5, 0.7]) {
      const expanded = new Map(judged.map((queryId) => [queryId, rm3Run(queryId, m, 5, originalWeight, documentTerms)]));
      for (const [vectorName, vectorArm] of vectorArms) {
        for (const k of [5, 10, 20]) {
          for (const weight of [0.5, 1]) {
            for (const vectorWeight of [0.1, 0.2, 0.3]) {
              results.push({
                name: `rm3 m=${m} terms=5 original=${originalWeight} w=${weight} + ${vectorName} v=${vectorWeight} k=${k}`,
                value: mean(scoresOf((queryId) => fuseMany([
                  { ranked: base.get(queryId)!.keyword.slice(0, 20), weight: 1 },
                  { ranked: expanded.get(queryId)!.slice(0, 20), weight },
                  { ranked: vectorArm.get(queryId)!.slice(0, 20), weight: vectorWeight },
                ], k))),
              });
            }
          }
        }
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 15)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
}

// The configurations chosen on the training split, reported with paired tests against keyword-only.
// Run once with --split test at the end; nothing here is tuned on it.
if (run("final")) {
  const documentTerms = documents.map((document) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(`${document.title} ${document.text}`)) {
      if (STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
      const term = stem(word);
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const rocchio = new Map<string, { document: number; score: number }[]>();
  const expanded = new Map<string, { document: number; score: number }[]>();
  for (const queryId of judged) {
    const run = base.get(queryId)!;
    const query = new Float64Array(dimensions);
    const top = run.keyword.slice(0, 5);
    for (let dimension = 0; dimension < dimensions; dimension++) query[dimension] = run.queryVector[dimension]!;
    for (const { document } of top) for (let dimension = 0; dimension < dimensions; dimension++) query[dimension]! += matrix[document * dimensions + dimension]! / top.length;
    rocchio.set(queryId, topOf(cosineScores(normalized(query)), 100, false));
    expanded.set(queryId, rm3RunAnyDf(queryId, 5, 5, 0.7, documentTerms));
  }
  const keyword20 = (queryId: string) => base.get(queryId)!.keyword.slice(0, 20);
  report("rocchio vector arm (m=5, a=1), RRF k=5 v=0.2", (queryId) =>
    fuseMany([{ ranked: keyword20(queryId), weight: 1 }, { ranked: rocchio.get(queryId)!.slice(0, 20), weight: 0.2 }], 5));
  report("weighted RM3 (m=5, 5 terms any df, original 0.7), RRF k=5 w=1", (queryId) =>
    fuseMany([{ ranked: keyword20(queryId), weight: 1 }, { ranked: expanded.get(queryId)!.slice(0, 20), weight: 1 }], 5));
  report("keyword + RM3 (w=0.5) + rocchio (v=0.3), RRF k=10", (queryId) =>
    fuseMany([
      { ranked: keyword20(queryId), weight: 1 },
      { ranked: expanded.get(queryId)!.slice(0, 20), weight: 0.5 },
      { ranked: rocchio.get(queryId)!.slice(0, 20), weight: 0.3 },
    ], 10));
}

// Around the best three-arm configuration, and the variants the core can run without a port change.
if (run("combo4")) {
  const termsOf = (minimumDf: number) => documents.map((document) => {
    const counts = new Map<string, number>();
    let length = 0;
    for (const word of words(`${document.title} ${document.text}`)) {
      if (STOPWORDS.has(word) || /^\d+$/.test(word)) continue;
      const term = stem(word);
      if (postings.get(term)!.length < minimumDf) continue;
      counts.set(term, (counts.get(term) ?? 0) + 1);
      length++;
    }
    return { counts, length };
  });
  const documentTerms = termsOf(1);
  const rocchioArm = (m: number, alpha: number) => {
    const arm = new Map<string, { document: number; score: number }[]>();
    for (const queryId of judged) {
      const run = base.get(queryId)!;
      const query = new Float64Array(dimensions);
      const top = run.keyword.slice(0, m);
      for (let dimension = 0; dimension < dimensions; dimension++) query[dimension] = run.queryVector[dimension]!;
      for (const { document } of top) for (let dimension = 0; dimension < dimensions; dimension++) query[dimension]! += (alpha * matrix[document * dimensions + dimension]!) / top.length;
      arm.set(queryId, topOf(cosineScores(normalized(query)), 100, false));
    }
    return arm;
  };
  const rocchios = new Map([["r5a1", rocchioArm(5, 1)], ["r3a1", rocchioArm(3, 1)], ["r5a2", rocchioArm(5, 2)]]);
  const results: { name: string; value: number; scores: number[] }[] = [];
  const push = (name: string, ranking: Ranking) => {
    const scores = scoresOf(ranking);
    results.push({ name, value: mean(scores), scores });
  };
  // Core-only: keyword + plain vector + Rocchio vector.
  for (const [name, arm] of rocchios) {
    for (const k of [5, 10, 20]) {
      for (const vectorWeight of [0, 0.1, 0.2]) {
        for (const rocchioWeight of [0.1, 0.2, 0.3, 0.5]) {
          push(`core-only keyword + vector ${vectorWeight} + ${name} ${rocchioWeight} k=${k}`, (queryId) => fuseMany([
              { ranked: base.get(queryId)!.keyword.slice(0, 20), weight: 1 },
              { ranked: base.get(queryId)!.vector.slice(0, 20), weight: vectorWeight },
              { ranked: arm.get(queryId)!.slice(0, 20), weight: rocchioWeight },
            ], k));
        }
      }
    }
  }
  for (const [termsName, terms] of [["df>=2", null], ["any df", documentTerms]] as const) {
    for (const expansion of [5, 10]) {
      for (const originalWeight of [0.6, 0.7, 0.8]) {
        const expanded = new Map(judged.map((queryId) => [queryId, terms === null ? rm3Run(queryId, 5, expansion, originalWeight, documentTerms) : rm3RunAnyDf(queryId, 5, expansion, originalWeight, terms)]));
        for (const [name, arm] of rocchios) {
          for (const k of [10, 15]) {
            for (const weight of [0.3, 0.5, 0.7]) {
              for (const rocchioWeight of [0.2, 0.3, 0.4, 0.5]) {
                push(`rm3 ${termsName} terms=${expansion} original=${originalWeight} w=${weight} + ${name} ${rocchioWeight} k=${k}`, (queryId) => fuseMany([
                    { ranked: base.get(queryId)!.keyword.slice(0, 20), weight: 1 },
                    { ranked: expanded.get(queryId)!.slice(0, 20), weight },
                    { ranked: arm.get(queryId)!.slice(0, 20), weight: rocchioWeight },
                  ], k));
              }
            }
          }
        }
      }
    }
  }
  results.sort((a, b) => b.value - a.value);
  for (const row of results.slice(0, 15)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
  for (const row of results.filter((row) => row.name.startsWith("core-only")).slice(0, 8)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
  for (const row of results.filter((row) => row.name.startsWith("rm3 any")).slice(0, 5)) console.log(`${row.name}\t${row.value.toFixed(4)}`);
  // How much of the best configuration's gain is selection: pick on half the training claims,
  // measure on the other half (and the other way round).
  for (const [pick, hold] of [[0, 1], [1, 0]] as const) {
    const on = (scores: number[], half: number) => mean(scores.filter((_, index) => index % 2 === half));
    const chosen = [...results].sort((a, b) => on(b.scores, pick) - on(a.scores, pick))[0]!;
    console.log(
      `2-fold: chosen on half ${pick}: ${chosen.name} (${(on(chosen.scores, pick) - on(keywordNdcg, pick)).toFixed(4)} there); ` +
        `on half ${hold}: ${on(chosen.scores, hold).toFixed(4)} vs keyword ${on(keywordNdcg, hold).toFixed(4)} (Δ ${(on(chosen.scores, hold) - on(keywordNdcg, hold)).toFixed(4)})`,
    );
  }
}

/** rm3Run without the df ≥ 2 filter (what a core that sees only the hits' texts can compute). */
function rm3RunAnyDf(queryId: string, m: number, expansion: number, originalWeight: number, documentTerms: { counts: Map<string, number>; length: number }[]) {
  const run = base.get(queryId)!;
  const top = run.keyword.slice(0, m);
  if (top.length === 0) return [];
  const total = top.reduce((sum, { score }) => sum + Math.exp(score - top[0]!.score), 0);
  const model = new Map<string, number>();
  for (const { document, score } of top) {
    const weight = Math.exp(score - top[0]!.score) / total;
    const { counts, length } = documentTerms[document]!;
    for (const [term, frequency] of counts) model.set(term, (model.get(term) ?? 0) + (weight * frequency) / length);
  }
  const best = [...model].sort((a, b) => b[1] - a[1]).slice(0, expansion);
  const sum = best.reduce((acc, [, value]) => acc + value, 0) || 1;
  const weights = new Map<string, number>();
  for (const [term, value] of termWeights(run.terms)) weights.set(term, (originalWeight * value) / run.terms.length);
  for (const [term, value] of best) weights.set(term, (weights.get(term) ?? 0) + ((1 - originalWeight) * value) / sum);
  return topOf(bm25Scores(weights), 100);
}

// What the feedback steps cost per query in the core, beyond the two searches: embedding the top
// 5 hits' texts (a fresh embedder, so no word is cached, and a warm one) and the RM3 term model.
if (run("cost")) {
  const timesCold: number[] = [];
  const timesWarm: number[] = [];
  const timesModel: number[] = [];
  const warm = createLocalEmbedder();
  for (const queryId of judged) {
    const texts = base.get(queryId)!.keyword.slice(0, 5).map(({ document }) => `${documents[document]!.title}\n${documents[document]!.text}`);
    const cold = createLocalEmbedder();
    let started = performance.now();
    await cold.embed(texts, "document");
    timesCold.push(performance.now() - started);
    await warm.embed(texts, "document");
    started = performance.now();
    await warm.embed(texts, "document");
    timesWarm.push(performance.now() - started);
    started = performance.now();
    const model = new Map<string, number>();
    for (const text of texts) {
      const terms = words(text).filter((word) => !STOPWORDS.has(word) && !/^\d+$/.test(word)).map(stem);
      for (const term of terms) model.set(term, (model.get(term) ?? 0) + 1 / terms.length);
    }
    [...model].sort((a, b) => b[1] - a[1]).slice(0, 5);
    timesModel.push(performance.now() - started);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!.toFixed(3);
  console.log(`embedding the top 5 hits: p50 ${median(timesCold)} ms cold, ${median(timesWarm)} ms warm; RM3 term model p50 ${median(timesModel)} ms`);
}
