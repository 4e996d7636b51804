// Retrieval speed: `npm run bench [-- --sizes 10000,100000 --noise 30000 --queries 300 --batch-chunks 256]`.
// Seeds one chatbot with synthetic ~800-character chunks (10 per document) next to other
// chatbots' chunks, then reports: p50/p99 of the whole retrieval step chat runs (embed the
// query, keyword and vector search, fusion) on a first pass over the queries and on a second,
// warm one; recall of the vector top 20 against exact cosine; the warm-up a restarted server
// runs (every chatbot's postings read ahead); ingestion throughput with the local embedder; and
// the database size. A benchmark, not a test.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createLocalEmbedder, embedInBatches, retrieveCandidates, type DocumentToIndex, type SearchIndex } from "@parley/core";
import { createSqliteSearchIndex, openDatabase } from "@parley/sqlite";
import { machineDescription } from "./lib/machine.js";
import { mean, percentile } from "./lib/metrics.js";
import { noiseChunks, seededRandom, syntheticText, type SyntheticChunk } from "./lib/noise.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    noise: { type: "string", default: "30000" },
    queries: { type: "string", default: "300" },
    keep: { type: "string" },
    oversampling: { type: "string" },
    "chunks-per-document": { type: "string", default: "10" },
    "batch-chunks": { type: "string", default: "256" },
  },
});
const sizes = values.sizes.split(",").map(Number);
const noiseTotal = Number(values.noise);
const queryCount = Number(values.queries);
const CHATBOT = "00000000-0000-4000-8000-0000000be4c4";
const CHUNKS_PER_DOCUMENT = Number(values["chunks-per-document"]);
const BATCH_CHUNKS = Number(values["batch-chunks"]);

console.log(`# Parley retrieval benchmark\n${machineDescription()}`);
const loadAverage = () => `load average ${loadavg().map((value) => value.toFixed(2)).join(", ")}`;
console.log(loadAverage());
const directory = mkdtempSync(join(tmpdir(), "parley-bench-"));
const path = values.keep ?? join(directory, "bench.db"); // --keep FILE leaves the database behind
const database = openDatabase({ path });
const searchIndex: SearchIndex = createSqliteSearchIndex({
  database,
  ...(values.oversampling === undefined ? {} : { oversampling: Number(values.oversampling) }),
});
const embedder = createLocalEmbedder();
const space = { embedderId: embedder.id, dimensions: embedder.dimensions };

/**
 * Ingests chunks as documents of ten, the way ingestDocuments does: embed, then whole documents
 * written about `--batch-chunks` chunks (default 256) per replaceDocuments call, one transaction each.
 */
async function ingest(chatbotId: string, chunks: SyntheticChunk[]): Promise<void> {
  const vectors = await embedInBatches(embedder, chunks.map((chunk) => `${chunk.title}\n${chunk.text}`), "document");
  let batch: DocumentToIndex[] = [];
  let batchSize = 0;
  for (let start = 0; start < chunks.length; start += CHUNKS_PER_DOCUMENT) {
    const group = chunks.slice(start, start + CHUNKS_PER_DOCUMENT);
    if (batch.length > 0 && batchSize + group.length > BATCH_CHUNKS) {
      await searchIndex.replaceDocuments(chatbotId, space, batch);
      batch = [];
      batchSize = 0;
    }
    batch.push({
      source: group[0]!.source,
      title: group[0]!.title,
      chunks: group.map((chunk, index) => ({ text: chunk.text, embedding: vectors[start + index]! })),
    });
    batchSize += group.length;
  }
  if (batch.length > 0) await searchIndex.replaceDocuments(chatbotId, space, batch);
}

const size = () => {
  database.pragma("wal_checkpoint(TRUNCATE)");
  return statSync(path).size;
};

try {
  // Other chatbots' chunks share the tables (and FTS5's statistics).
  const noiseStarted = performance.now();
  let noiseIndex = 0;
  for (const batch of noiseChunks(noiseTotal, 10_000, 99, "other")) {
    await ingest(`00000000-0000-4000-8000-00000000000${noiseIndex++ % 3}`, batch);
  }
  console.log(`noise: ${noiseTotal} chunks in 3 other chatbots (${((performance.now() - noiseStarted) / 1000).toFixed(1)} s)`);

  const source = noiseChunks(Math.max(...sizes), 10_000, 1, "doc");
  let seeded = 0;
  const random = seededRandom(2024);
  const queries = Array.from({ length: queryCount }, () => syntheticText(random, 4 + Math.floor(random() * 8)));
  console.log(
    "\n| chunks in the chatbot | ingest chunks/s | retrieval p50 ms, first pass | p99 | retrieval p50 ms, warm | p99 | warm CPU ms p50 | keyword p50 | vector p50 (embed + search) | recall@20 vs exact | warm-up after a restart, s | DB size MB |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const target of sizes) {
    let ingestMs = 0;
    let ingested = 0;
    while (seeded < target) {
      const { value: batch } = source.next();
      if (batch === undefined) break;
      const started = performance.now();
      await ingest(CHATBOT, batch);
      ingestMs += performance.now() - started;
      ingested += batch.length;
      seeded += batch.length;
    }
    // Exact cosine over every chunk of the chatbot, for recall (the stored vectors are unit length).
    const stored = database
      .prepare<[string], { id: number; embedding: Buffer }>(
        "SELECT c.id, c.embedding FROM search_chunks AS c JOIN search_chatbots AS b ON b.key = c.bot WHERE b.chatbot_id = ?",
      )
      .all(CHATBOT);
    const storedIds = stored.map((row) => String(row.id));
    const storedVectors = new Float32Array(stored.length * space.dimensions);
    stored.forEach((row, index) => storedVectors.set(new Float32Array(Uint8Array.from(row.embedding).buffer), index * space.dimensions));
    const exactTop20 = (query: Float32Array): string[] => {
      const scores = new Float32Array(stored.length);
      for (let row = 0; row < stored.length; row++) {
        let dot = 0;
        for (let dimension = 0, offset = row * space.dimensions; dimension < space.dimensions; dimension++) dot += storedVectors[offset + dimension]! * query[dimension]!;
        scores[row] = dot;
      }
      return Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]!).slice(0, 20).map((row) => storedIds[row]!);
    };
    for (const query of queries.slice(0, 20)) await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query }); // warm-up
    const whole: number[] = [];
    const keyword: number[] = [];
    const vector: number[] = [];
    const recalls: number[] = [];
    for (const query of queries) {
      let started = performance.now();
      await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query });
      whole.push(performance.now() - started);
      started = performance.now();
      await searchIndex.keywordSearch(CHATBOT, query, 20);
      keyword.push(performance.now() - started);
      started = performance.now();
      const [queryVector] = await embedder.embed([query], "query");
      const found = await searchIndex.vectorSearch(CHATBOT, space, queryVector!, 20);
      vector.push(performance.now() - started);
      if (recalls.length < 100) {
        const foundIds = new Set(found.map((hit) => hit.chunkId));
        recalls.push(exactTop20(queryVector!).filter((id) => foundIds.has(id)).length / 20);
      }
    }
    // The same queries again: every word's postings are now in memory, as in a server that has
    // answered for a while (the first pass pays each new word's first read from FTS5).
    const warm: number[] = [];
    // CPU time of the process per retrieval (getrusage, µs resolution): the figure that survives a
    // shared machine's load, where wall time also counts the waits for a core.
    const warmCpu: number[] = [];
    for (const query of queries) {
      const cpuStarted = process.cpuUsage();
      const started = performance.now();
      await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query });
      warm.push(performance.now() - started);
      const cpu = process.cpuUsage(cpuStarted);
      warmCpu.push((cpu.user + cpu.system) / 1000);
    }
    // A restarted server's warm-up: a fresh index over the same file reads every chatbot's
    // postings ahead, in the slices `parley serve` runs while idle.
    const warmUpStarted = performance.now();
    await createSqliteSearchIndex({ database }).warmUp();
    const warmUpSeconds = (performance.now() - warmUpStarted) / 1000;
    console.log(
      `| ${seeded.toLocaleString("en")} | ${Math.round(ingested / (ingestMs / 1000)).toLocaleString("en")} | ${percentile(whole, 0.5).toFixed(2)} | ` +
        `${percentile(whole, 0.99).toFixed(2)} | ${percentile(warm, 0.5).toFixed(2)} | ${percentile(warm, 0.99).toFixed(2)} | ` +
        `${percentile(warmCpu, 0.5).toFixed(2)} | ` +
        `${percentile(keyword, 0.5).toFixed(2)} | ${percentile(vector, 0.5).toFixed(2)} | ` +
        `${mean(recalls).toFixed(3)} | ${warmUpSeconds.toFixed(1)} | ${(size() / 2 ** 20).toFixed(1)} |`,
    );
  }
  console.log(
    `\n${queryCount} synthetic queries of 4–11 words; ${noiseTotal} noise chunks in 3 other chatbots; ` +
      `${CHUNKS_PER_DOCUMENT} chunks per document, about ${BATCH_CHUNKS} chunks per replaceDocuments transaction; oversampling ${values.oversampling ?? "default"}.`,
  );
  console.log(loadAverage());
} finally {
  database.close();
  rmSync(directory, { recursive: true, force: true });
}
