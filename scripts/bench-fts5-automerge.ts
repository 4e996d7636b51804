// FTS5's automerge setting against insert cost, segments and posting reads (FTS_AUTOMERGE in
// packages/sqlite/src/sqlite-search-index-keyword.ts; docs/benchmarks.md, "FTS5 automerge"):
//   npm run bench:fts5-automerge -- [--chunks 100000] [--settings 4,8,0]
// For each setting: a fresh file database, one FTS5 table as Parley creates it, the benchmark's
// synthetic chunks inserted 256 a transaction; then the segments left and the time to read the
// postings of 28 words of synthetic queries (as the in-process scorer reads them: fts5vocab's
// instance table, two json_group_arrays a word).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { stemmer } from "stemmer";
import { machineDescription } from "./lib/machine.js";
import { noiseChunks, seededRandom, syntheticText } from "./lib/noise.js";

const { values } = parseArgs({ options: { chunks: { type: "string", default: "100000" }, settings: { type: "string", default: "4,8,0" } } });
const total = Number(values.chunks);
const BATCH = 256;
const random = seededRandom(7);
// Stemmed as FTS5's porter tokenizer stores them (the synthetic words are ASCII letters).
const words = [...new Set(Array.from({ length: 40 }, () => syntheticText(random, 8).split(" ").map((word) => stemmer(word))).flat())].slice(0, 28);

const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

const directory = mkdtempSync(join(tmpdir(), "parley-automerge-"));
console.log(machineDescription());
console.log(`\n${total} synthetic chunks, ${BATCH} a transaction; postings of ${words.length} words read once.\n`);
// CPU time as well as wall time: on a shared machine the wall clock also counts other work.
console.log("| automerge | insert µs a chunk (CPU) | insert µs a chunk (wall) | segments at the end | postings read, ms (CPU) | postings read, ms (wall) |");
console.log("|---:|---:|---:|---:|---:|---:|");
try {
  for (const setting of values.settings.split(",").map(Number)) {
    const database = new BetterSqlite3(join(directory, `automerge-${setting}.db`));
    database.pragma("journal_mode = WAL");
    database.pragma("synchronous = NORMAL");
    database.exec("CREATE VIRTUAL TABLE fts USING fts5 (title, body, content = '', contentless_delete = 1, tokenize = 'porter unicode61')");
    database.exec(`INSERT INTO fts (fts, rank) VALUES ('automerge', ${Math.trunc(setting)})`);
    const insert = database.prepare("INSERT INTO fts (rowid, title, body) VALUES (?, ?, ?)");
    let rowid = 0;
    const write = database.transaction((batch: { title: string; text: string }[]) => {
      for (const chunk of batch) insert.run(++rowid, chunk.title, chunk.text);
    });
    let insertMs = 0;
    let insertCpuMs = 0;
    for (const batch of noiseChunks(total, BATCH)) {
      const [started, cpu] = [performance.now(), process.cpuUsage()];
      write(batch);
      insertMs += performance.now() - started;
      insertCpuMs += cpuMs(process.cpuUsage(cpu));
    }
    const segments = database.prepare("SELECT count(DISTINCT segid) FROM fts_idx").pluck().get() as number;
    database.exec("CREATE VIRTUAL TABLE temp.fts_instances USING fts5vocab (main, fts, instance)");
    const term = database.prepare("SELECT json_group_array(doc) AS docs, json_group_array(col = 'title') AS titles FROM temp.fts_instances WHERE term = ?");
    const [started, cpu] = [performance.now(), process.cpuUsage()];
    let instances = 0;
    for (const word of words) instances += (JSON.parse((term.get(word) as { docs: string }).docs) as unknown[]).length;
    const [readMs, readCpuMs] = [performance.now() - started, cpuMs(process.cpuUsage(cpu))];
    const perChunk = (ms: number) => ((ms * 1000) / total).toFixed(1);
    console.log(`| ${setting} | ${perChunk(insertCpuMs)} | ${perChunk(insertMs)} | ${segments} | ${readCpuMs.toFixed(0)} | ${readMs.toFixed(0)} |`);
    if (setting === Number(values.settings.split(",")[0])) console.error(`(${instances} instances of the ${words.length} words)`);
    database.close();
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
}
