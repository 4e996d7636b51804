// Retrieval quality on a BEIR collection: `npm run eval -- <BEIR folder> [options]`.
// Ingests every document as one chunk (doc-level judgments need no aggregation) through the
// public SearchIndex API into a temporary SQLite database (or PostgreSQL: --store postgres), runs each judged query through the
// keyword arm, the vector arm (the local embedder) and the fused ranking chat uses
// (retrieveCandidates), and reports nDCG@10, Recall@100 and MRR@10 with timings.
//
// Options: --qrels FILE (relative to the folder; default qrels-test.tsv or qrels/test.tsv)
//          --split train (= --qrels qrels-train-evidence.tsv, for tuning)
//          --sweep       (grid of fusion parameters over the same runs; tune on train only)
//          --noise N     (N chunks of another chatbot in the same tables, for the BM25-statistics question)
//          --title-weight W, --posting-budget P (SqliteSearchIndexOptions, for tuning on train)
//          --store sqlite|postgres (postgres: PARLEY_DATABASE_URL, or PGlite with pgvector when unset)
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLocalEmbedder, embedInBatches, fuseByReciprocalRank, retrieveCandidates, type FusionParameters, type SearchHit } from "@parley/core";
import { loadBeir } from "./lib/beir.js";
import { openEvalStore } from "./lib/eval-store.js";
import { machineDescription } from "./lib/machine.js";
import { mean, mrrAt, ndcgAt, pairedRandomizationTest, percentile, recallAt } from "./lib/metrics.js";
import { noiseChunks } from "./lib/noise.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    qrels: { type: "string" },
    split: { type: "string" },
    sweep: { type: "boolean", default: false },
    noise: { type: "string", default: "0" },
    "title-weight": { type: "string" },
    "posting-budget": { type: "string" },
    store: { type: "string", default: "sqlite" },
  },
});
const folder = positionals[0];
if (folder === undefined) {
  console.error("usage: npm run eval -- <BEIR folder> [--split train] [--qrels FILE] [--sweep] [--noise N]");
  process.exit(2);
}
const qrelsFile =
  values.qrels ??
  (values.split === "train" ? "qrels-train-evidence.tsv" : existsSync(join(folder, "qrels-test.tsv")) ? "qrels-test.tsv" : "qrels/test.tsv");

const CHATBOT = "00000000-0000-4000-8000-00000000beef";
const NOISE_CHATBOT = "00000000-0000-4000-8000-0000000a0150";
const collection = loadBeir(folder, qrelsFile);
const judged = [...collection.qrels.keys()].filter((id) => collection.queries.has(id));
console.log(`# Parley retrieval eval\n${machineDescription()}`);
console.log(`collection ${folder}: ${collection.documents.length} documents, ${judged.length} judged queries (${qrelsFile})`);

const store = await openEvalStore(values.store!, {
  ...(values["title-weight"] === undefined ? {} : { titleWeight: Number(values["title-weight"]) }),
  ...(values["posting-budget"] === undefined ? {} : { postingBudget: Number(values["posting-budget"]) }),
});
const { searchIndex } = store;
console.log(`store: ${store.description}`);
const embedder = createLocalEmbedder();
const space = { embedderId: embedder.id, dimensions: embedder.dimensions };

try {
  const noise = Number(values.noise);
  if (noise > 0) {
    for (const batch of noiseChunks(noise, 1_000)) {
      const vectors = await embedInBatches(embedder, batch.map((chunk) => `${chunk.title}\n${chunk.text}`), "document");
      await Promise.all(batch.map((chunk, index) =>
        searchIndex.replaceDocument(NOISE_CHATBOT, space, { source: chunk.source, title: chunk.title, chunks: [{ text: chunk.text, embedding: vectors[index]! }] }),
      ));
    }
    console.log(`noise: ${noise} chunks of another chatbot in the same tables`);
  }

  // Ingest as ingestDocument does (title + text embedded together), one chunk per document.
  const ingestStarted = performance.now();
  const vectors = await embedInBatches(embedder, collection.documents.map((document) => `${document.title}\n${document.text}`), "document");
  const embedded = performance.now();
  for (const [index, document] of collection.documents.entries()) {
    await searchIndex.replaceDocument(CHATBOT, space, {
      source: document.id,
      title: document.title,
      chunks: [{ text: document.text, embedding: vectors[index]! }],
    });
  }
  const ingestSeconds = (performance.now() - ingestStarted) / 1000;
  console.log(
    `ingest: ${collection.documents.length} chunks in ${ingestSeconds.toFixed(2)} s ` +
      `(embedding ${((embedded - ingestStarted) / 1000).toFixed(2)} s; ${Math.round(collection.documents.length / ingestSeconds)} chunks/s, one transaction per document)`,
  );

  interface Run { keyword: SearchHit[]; vector: SearchHit[]; chat: string[]; times: { keyword: number; vector: number; chat: number } }
  const runs = new Map<string, Run>();
  for (const queryId of judged) {
    const query = collection.queries.get(queryId)!;
    let started = performance.now();
    const keyword = await searchIndex.keywordSearch(CHATBOT, query, 100);
    const keywordTime = performance.now() - started;
    started = performance.now();
    const [queryVector] = await embedder.embed([query], "query");
    const vector = await searchIndex.vectorSearch(CHATBOT, space, queryVector!, 100);
    const vectorTime = performance.now() - started;
    started = performance.now();
    const chat = (await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query })).map((hit) => hit.source);
    const chatTime = performance.now() - started;
    runs.set(queryId, { keyword, vector, chat, times: { keyword: keywordTime, vector: vectorTime, chat: chatTime } });
  }

  type Ranking = (run: Run) => string[];
  const perQuery = (ranking: Ranking, metric: typeof ndcgAt, cutoff: number) =>
    judged.map((queryId) => metric(ranking(runs.get(queryId)!), collection.qrels.get(queryId)!, cutoff));
  const fusedWide = (parameters: FusionParameters, depth = 100): Ranking => (run) =>
    fuseByReciprocalRank(run.keyword.slice(0, depth), run.vector.slice(0, depth), parameters).map((hit) => hit.source);
  const arms: [string, Ranking, number[] | null][] = [
    ["keyword (BM25)", (run) => run.keyword.map((hit) => hit.source), judged.map((id) => runs.get(id)!.times.keyword)],
    ["vector (local embedder)", (run) => run.vector.map((hit) => hit.source), judged.map((id) => runs.get(id)!.times.vector)],
    ["hybrid, chat path (20 + 20)", (run) => run.chat, judged.map((id) => runs.get(id)!.times.chat)],
    ["hybrid, same fusion over 100 + 100", fusedWide(embedder.fusion), null],
  ];
  console.log(`\nfusion defaults of ${embedder.id}: ${JSON.stringify(embedder.fusion)}`);
  console.log("\n| ranking | nDCG@10 | Recall@100 | MRR@10 | p50 ms | p99 ms |\n|---|---:|---:|---:|---:|---:|");
  for (const [name, ranking, times] of arms) {
    const cells = [perQuery(ranking, ndcgAt, 10), perQuery(ranking, recallAt, 100), perQuery(ranking, mrrAt, 10)].map((scores) => mean(scores).toFixed(4));
    const timing = times === null ? ["", ""] : [percentile(times, 0.5).toFixed(2), percentile(times, 0.99).toFixed(2)];
    console.log(`| ${name} | ${cells.join(" | ")} | ${timing.join(" | ")} |`);
  }

  const keywordNdcg = perQuery(arms[0]![1], ndcgAt, 10);
  const vectorNdcg = perQuery(arms[1]![1], ndcgAt, 10);
  const hybridNdcg = perQuery(arms[2]![1], ndcgAt, 10);
  const test = pairedRandomizationTest(hybridNdcg, keywordNdcg);
  const wins = hybridNdcg.filter((score, index) => score > keywordNdcg[index]!).length;
  const losses = hybridNdcg.filter((score, index) => score < keywordNdcg[index]!).length;
  console.log(
    `\nhybrid vs keyword, paired randomization test over ${judged.length} queries (20,000 rounds): ` +
      `mean ΔnDCG@10 = ${test.meanDifference >= 0 ? "+" : ""}${test.meanDifference.toFixed(4)}, p = ${test.pValue.toFixed(4)}; ` +
      `${wins} queries better, ${losses} worse`,
  );

  if (values.sweep) {
    console.log("\nsweep of weighted RRF on the chat path (20 + 20), nDCG@10:");
    const rows: { k: number; vectorWeight: number; ndcg: number }[] = [];
    for (const k of [1, 5, 10, 20, 30, 60]) {
      for (const vectorWeight of [0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.7, 1]) {
        const ndcg = mean(perQuery(fusedWide({ k, keywordWeight: 1, vectorWeight }, 20), ndcgAt, 10));
        rows.push({ k, vectorWeight, ndcg });
      }
    }
    const equal = rows.find((row) => row.k === 60 && row.vectorWeight === 1)!;
    rows.sort((a, b) => b.ndcg - a.ndcg);
    for (const row of rows.slice(0, 15)) console.log(`k=${row.k} vector=${row.vectorWeight} nDCG@10=${row.ndcg.toFixed(4)}`);
    // The semantic models' default, for comparison (docs/retrieval.md, "Fusion defaults").
    console.log(`equal weights, k=60: nDCG@10=${equal.ndcg.toFixed(4)}`);
  }

  console.log(
    `\nnDCG@10 keyword=${mean(keywordNdcg).toFixed(4)} vector=${mean(vectorNdcg).toFixed(4)} hybrid=${mean(hybridNdcg).toFixed(4)}`,
  );
} finally {
  await store.close();
}
