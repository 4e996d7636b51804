// CPU time per retrieval on a database kept by `npm run bench -- --keep FILE`:
// `npm run bench:retrieval-cpu -- FILE [--rounds 3]`. The same 300 queries as `npm run bench`,
// one pass to read every word's postings and the vectors into memory, then `--rounds` warm
// passes timed by process.cpuUsage (getrusage: CPU of the whole process, µs resolution): the
// whole retrieval chat runs, then each arm on its own. CPU time, unlike wall time, survives a
// shared machine's load. A benchmark, not a test.
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { createLocalEmbedder, retrieveCandidates } from "@parley/core";
import { createSqliteSearchIndex, openDatabase } from "@parley/sqlite";
import { machineDescription } from "./lib/machine.js";
import { percentile } from "./lib/metrics.js";
import { seededRandom, syntheticText } from "./lib/noise.js";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { rounds: { type: "string", default: "3" } } });
if (positionals[0] === undefined) throw new Error("usage: npm run bench:retrieval-cpu -- FILE (a database kept by npm run bench -- --keep FILE)");
const CHATBOT = "00000000-0000-4000-8000-0000000be4c4"; // bench.ts's chatbot
const loadAverage = () => `load average ${loadavg().map((value) => value.toFixed(2)).join(", ")}`;
console.log(`# Parley retrieval CPU per query\n${machineDescription()}\n${loadAverage()}`);

const database = openDatabase({ path: positionals[0] });
const searchIndex = createSqliteSearchIndex({ database });
const embedder = createLocalEmbedder();
const space = { embedderId: embedder.id, dimensions: embedder.dimensions };
const random = seededRandom(2024); // bench.ts's queries
const queries = Array.from({ length: 300 }, () => syntheticText(random, 4 + Math.floor(random() * 8)));
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

try {
  for (const query of queries) await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query });
  const figures = { whole: [] as number[], keyword: [] as number[], embed: [] as number[], vector: [] as number[] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const query of queries) {
      let started = process.cpuUsage();
      await retrieveCandidates({ searchIndex, embedder, chatbotId: CHATBOT, query });
      figures.whole.push(cpuMs(started));
      started = process.cpuUsage();
      await searchIndex.keywordSearch(CHATBOT, query, 20);
      figures.keyword.push(cpuMs(started));
      started = process.cpuUsage();
      const [vector] = await embedder.embed([query], "query");
      figures.embed.push(cpuMs(started));
      started = process.cpuUsage();
      await searchIndex.vectorSearch(CHATBOT, space, vector!, 20);
      figures.vector.push(cpuMs(started));
    }
  }
  console.log("\n| CPU ms per query | p50 | p99 |\n|---|---:|---:|");
  for (const [name, list] of Object.entries(figures)) console.log(`| ${name} | ${percentile(list, 0.5).toFixed(2)} | ${percentile(list, 0.99).toFixed(2)} |`);
  console.log(`\n${queries.length} queries × ${values.rounds} warm rounds; ${loadAverage()}`);
} finally {
  database.close();
}
