// `npm run fuzz -- --runs N [--seed S] [--count-all]`: fuzzes a fresh server with N hostile
// requests and prints the status counts, or the first failure with the seed and path that replay
// it; `--count-all` goes on past failures and counts the broken cases by reason instead.
import { parseArgs } from "node:util";
import { startFuzzTarget } from "./fuzz-target.js";
import { runFuzzCases } from "./run-fuzz-cases.js";

const { values } = parseArgs({ options: { runs: { type: "string", default: "1000" }, seed: { type: "string" }, "count-all": { type: "boolean", default: false } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
if (!Number.isSafeInteger(runs) || runs < 1 || !Number.isSafeInteger(seed)) {
  process.stderr.write("usage: npm run fuzz -- --runs N [--seed S]\n");
  process.exit(2);
}
process.stdout.write(`fuzz: ${runs} cases from seed ${seed} (replay: npm run fuzz -- --runs ${runs} --seed ${seed})\n`);
const target = await startFuzzTarget();
const started = performance.now();
const report = await runFuzzCases(target, {
  runs,
  seed,
  countAll: values["count-all"],
  onCase: (index) => {
    if (index % 1000 === 0) process.stdout.write(`  ${index} cases, ${Math.round((performance.now() - started) / 1000)} s\n`);
  },
});
await target.close();
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ seed: report.seed, runs: report.runs, seconds: Math.round(seconds), statuses: report.statuses, ...(values["count-all"] ? { broken: report.broken } : {}) })}\n`);
if (report.failure !== null || Object.keys(report.broken).length > 0) {
  process.stdout.write(`FAILED (seed ${seed}):\n${report.failure ?? "see broken"}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write("no property broken\n");
}
