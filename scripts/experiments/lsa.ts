// Prototype, not shipped: a semantic embedding fitted to the chatbot's own chunks (LSA: TF-IDF
// rows projected on the top singular subspace found by a randomized range finder), fused with
// BM25 by the same RRF chat uses. Tune on the training judgments only:
//   tsup --config scripts/tsup.config.ts && node .parley-bench/build/lsa.js <BEIR folder> [--split train] [--rank 256]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { contentTerms, createLocalEmbedder, embedInBatches, fuseByReciprocalRank, type SearchHit } from "@parley/core";
import { createSqliteSearchIndex, openDatabase } from "@parley/sqlite";
import { loadBeir } from "../lib/beir.js";
import { mean, ndcgAt, pairedRandomizationTest, recallAt } from "../lib/metrics.js";
import { seededRandom } from "../lib/noise.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { split: { type: "string", default: "train" }, rank: { type: "string", default: "256" }, power: { type: "string", default: "2" } },
});
const folder = positionals[0]!;
const collection = loadBeir(folder, values.split === "train" ? "qrels-train-evidence.tsv" : "qrels-test.tsv");
const judged = [...collection.qrels.keys()].filter((id) => collection.queries.has(id));
const rank = Number(values.rank);

// --- TF-IDF matrix, rows = documents, in CSR form -------------------------------------------
const started = performance.now();
const documentTerms = collection.documents.map((document) => contentTerms(`${document.title} ${document.title} ${document.text}`));
const documentFrequency = new Map<string, number>();
for (const terms of documentTerms) for (const term of new Set(terms)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
const count = collection.documents.length;
const vocabulary = new Map<string, number>();
for (const [term, frequency] of documentFrequency) if (frequency >= 2 && frequency <= count / 2) vocabulary.set(term, vocabulary.size);
const idf = new Float64Array(vocabulary.size);
for (const [term, index] of vocabulary) idf[index] = Math.log(count / documentFrequency.get(term)!);

function sparseRow(terms: string[]): { columns: number[]; values: number[] } {
  const counts = new Map<number, number>();
  for (const term of terms) {
    const column = vocabulary.get(term);
    if (column !== undefined) counts.set(column, (counts.get(column) ?? 0) + 1);
  }
  const columns = [...counts.keys()];
  const row = columns.map((column) => (1 + Math.log(counts.get(column)!)) * idf[column]!);
  const norm = Math.hypot(...row) || 1;
  return { columns, values: row.map((value) => value / norm) };
}
const rows = documentTerms.map(sparseRow);

// --- randomized range finder for the row space: Q (V × l) orthonormal -------------------------
const width = rank;
const termCount = vocabulary.size;
const random = seededRandom(11);
const gaussian = () => Math.sqrt(-2 * Math.log(random() + 1e-12)) * Math.cos(2 * Math.PI * random());
/** Y = Aᵀ X for X (N × l), dense column-major l arrays of length V. */
function transposeTimes(x: Float64Array[]): Float64Array[] {
  const y = Array.from({ length: width }, () => new Float64Array(termCount));
  rows.forEach((row, document) => {
    for (let column = 0; column < width; column++) {
      const factor = x[column]![document]!;
      if (factor === 0) continue;
      const target = y[column]!;
      for (let index = 0; index < row.columns.length; index++) target[row.columns[index]!]! += factor * row.values[index]!;
    }
  });
  return y;
}
/** X = A Y for Y (V × l). */
function times(y: Float64Array[]): Float64Array[] {
  const x = Array.from({ length: width }, () => new Float64Array(count));
  rows.forEach((row, document) => {
    for (let column = 0; column < width; column++) {
      const source = y[column]!;
      let sum = 0;
      for (let index = 0; index < row.columns.length; index++) sum += source[row.columns[index]!]! * row.values[index]!;
      x[column]![document] = sum;
    }
  });
  return x;
}
function orthonormalize(columns: Float64Array[]): void {
  for (let current = 0; current < columns.length; current++) {
    const vector = columns[current]!;
    for (let pass = 0; pass < 2; pass++) {
      for (let previous = 0; previous < current; previous++) {
        const basis = columns[previous]!;
        let dot = 0;
        for (let index = 0; index < vector.length; index++) dot += vector[index]! * basis[index]!;
        for (let index = 0; index < vector.length; index++) vector[index]! -= dot * basis[index]!;
      }
    }
    let norm = 0;
    for (const value of vector) norm += value * value;
    norm = Math.sqrt(norm) || 1;
    for (let index = 0; index < vector.length; index++) vector[index]! /= norm;
  }
}
let basis = transposeTimes(Array.from({ length: width }, () => Float64Array.from({ length: count }, gaussian)));
orthonormalize(basis);
for (let iteration = 0; iteration < Number(values.power); iteration++) {
  const projected = times(basis);
  orthonormalize(projected);
  basis = transposeTimes(projected);
  orthonormalize(basis);
}
const project = (row: { columns: number[]; values: number[] }) => {
  const vector = new Float64Array(width);
  for (let column = 0; column < width; column++) {
    const source = basis[column]!;
    let sum = 0;
    for (let index = 0; index < row.columns.length; index++) sum += source[row.columns[index]!]! * row.values[index]!;
    vector[column] = sum;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((value) => value / norm);
};
const documentVectors = rows.map(project);
console.log(`LSA fit: ${count} documents, ${termCount} terms, rank ${width}, ${((performance.now() - started) / 1000).toFixed(1)} s`);

// --- keyword arm through the real index; the local embedder's arm for comparison ---------------
const directory = mkdtempSync(join(tmpdir(), "parley-lsa-"));
const database = openDatabase({ path: join(directory, "lsa.db") });
const index = createSqliteSearchIndex({ database });
const embedder = createLocalEmbedder();
const space = { embedderId: embedder.id, dimensions: embedder.dimensions };
const CHATBOT = "00000000-0000-4000-8000-0000000015a0";
const vectors = await embedInBatches(embedder, collection.documents.map((document) => `${document.title}\n${document.text}`), "document");
for (const [position, document] of collection.documents.entries()) {
  await index.replaceDocument(CHATBOT, space, { source: document.id, title: document.title, chunks: [{ text: document.text, embedding: vectors[position]! }] });
}
const asHit = (position: number, score: number): SearchHit => ({ chunkId: collection.documents[position]!.id, source: collection.documents[position]!.id, title: "", text: "", score });
const runs: { queryId: string; keyword: SearchHit[]; hashing: SearchHit[]; lsa: SearchHit[] }[] = [];
for (const queryId of judged) {
  const query = collection.queries.get(queryId)!;
  const keyword = await index.keywordSearch(CHATBOT, query, 100);
  const [queryVector] = await embedder.embed([query], "query");
  const hashing = await index.vectorSearch(CHATBOT, space, queryVector!, 100);
  const queryLsa = project(sparseRow(contentTerms(query)));
  const lsa = documentVectors
    .map((vector, position) => ({ position, score: vector.reduce((sum, value, dimension) => sum + value * queryLsa[dimension]!, 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 100)
    .map(({ position, score }) => asHit(position, score));
  // Fusion matches hits by chunkId; here one chunk is one document, so use the document id.
  const bySource = (hits: SearchHit[]) => hits.map((hit) => ({ ...hit, chunkId: hit.source }));
  runs.push({ queryId, keyword: bySource(keyword), hashing: bySource(hashing), lsa });
}
database.close();
rmSync(directory, { recursive: true, force: true });

const score = (ranking: (run: (typeof runs)[number]) => SearchHit[]) =>
  runs.map((run) => ndcgAt(ranking(run).map((hit) => hit.source), collection.qrels.get(run.queryId)!, 10));
const keywordScores = score((run) => run.keyword);
console.log(`keyword ${mean(keywordScores).toFixed(4)}  hashing ${mean(score((run) => run.hashing)).toFixed(4)}  lsa ${mean(score((run) => run.lsa)).toFixed(4)}`);
console.log(`lsa R@100 ${mean(runs.map((run) => recallAt(run.lsa.map((hit) => hit.source), collection.qrels.get(run.queryId)!, 100))).toFixed(4)}`);
const results: { label: string; ndcg: number; p: number }[] = [];
for (const k of [5, 10, 20, 60]) {
  for (const weight of [0.2, 0.3, 0.5, 0.7, 1]) {
    const fused = score((run) => fuseByReciprocalRank(run.keyword.slice(0, 20), run.lsa.slice(0, 20), { k, keywordWeight: 1, vectorWeight: weight }));
    results.push({ label: `bm25+lsa k=${k} w=${weight}`, ndcg: mean(fused), p: pairedRandomizationTest(fused, keywordScores, 2000).pValue });
  }
}
for (const k of [5, 10]) {
  for (const weight of [0.1, 0.2, 0.3, 0.5]) {
    const fused = score((run) => fuseByReciprocalRank(run.keyword.slice(0, 20), [...fuseByReciprocalRank(run.hashing.slice(0, 20), run.lsa.slice(0, 20), { k: 60, keywordWeight: 1, vectorWeight: 1 })].slice(0, 20), { k, keywordWeight: 1, vectorWeight: weight }));
    results.push({ label: `bm25+(hashing⊕lsa) k=${k} w=${weight}`, ndcg: mean(fused), p: pairedRandomizationTest(fused, keywordScores, 2000).pValue });
  }
}
results.sort((a, b) => b.ndcg - a.ndcg);
for (const result of results.slice(0, 10)) console.log(`${result.label}: ${result.ndcg.toFixed(4)} (p vs keyword ${result.p.toFixed(3)})`);
