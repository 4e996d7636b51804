// Writes qrels-train-evidence.tsv into a BEIR SciFact folder, for tuning on the training claims:
//   node --conditions=source --import tsx scripts/scifact-train-qrels.ts DATA_DIR/scifact
// Every document a non-test claim has SUPPORT or CONTRADICT evidence in (the SciFact evidence
// kept in each query's `metadata` in queries.jsonl) counts as relevant, score 1. Claims without
// such evidence are left out, so the file is a subset of BEIR's own training qrels
// (qrels/train.tsv, which judges cited documents whatever their evidence). docs/benchmarks.md.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const folder = process.argv[2];
if (folder === undefined) throw new Error("usage: scripts/scifact-train-qrels.ts <BEIR SciFact folder>");
const testFile = ["qrels-test.tsv", join("qrels", "test.tsv")].map((name) => join(folder, name)).find((path) => existsSync(path));
if (testFile === undefined) throw new Error(`no qrels-test.tsv or qrels/test.tsv in ${folder}`);
const testIds = new Set(readFileSync(testFile, "utf8").split(/\r?\n/).slice(1).filter(Boolean).map((line) => line.split("\t")[0]));

const lines = ["query-id\tcorpus-id\tscore"];
let claims = 0;
for (const line of readFileSync(join(folder, "queries.jsonl"), "utf8").split("\n")) {
  if (line.trim() === "") continue;
  const query = JSON.parse(line) as { _id: string; metadata?: Record<string, { label: string }[]> };
  if (testIds.has(String(query._id))) continue;
  const relevant = Object.entries(query.metadata ?? {}).filter(([, evidence]) => evidence.some(({ label }) => label === "SUPPORT" || label === "CONTRADICT"));
  if (relevant.length > 0) claims += 1;
  for (const [documentId] of relevant) lines.push(`${query._id}\t${documentId}\t1`);
}
const out = join(folder, "qrels-train-evidence.tsv");
writeFileSync(out, `${lines.join("\n")}\n`);
process.stdout.write(`wrote ${out}: ${lines.length - 1} judgments for ${claims} training claims\n`);
