// `npm run bench:http`: the real server (real SQLite in a temp dir) against an instantly
// answering fake OpenAI, one chatbot with 10,000 chunks, driven by autocannon on the same
// machine. Reports requests/s, p50/p99 latency, non-2xx answers, CPU used by each process,
// and the server's peak memory. Options: --duration S (10), --connections N (10),
// --chunks N (10000), --only list|chat, --no-baseline, --profile DIR (server --cpu-prof; the
// bundle's source maps are left beside the profiles, for scripts/cpuprofile-steps.mjs),
// --perf (server --perf-basic-prof, so `perf record -p PID` names JavaScript functions),
// --rate N (hold every run at N requests/s in all, so CPU per request compares between
// servers at the same load: a saturated server batches more and spends less per request),
// --stub-core (also measure the HTTP layer alone in front of a stub core; on by default
// when both routes run),
// --built (run the installed `parley serve`, packages/server/bin/parley.js on the package build:
// run `npm run build` first), --tsx (run the TypeScript sources through tsx; by default the server
// is bundled from the current sources by tsup, as the package build compiles it: build-server.ts),
// --corpus DIR (a BEIR folder, e.g. SciFact: real abstracts and real questions instead of the
// generated support knowledge base),
// --check (exit 1 when the list or chat route's share of bare node:http in this run — bare's
// server CPU per request ÷ the route's — falls more than 20 % below the share recorded in
// http-bench-ratios.json for this machine's processor (model name, family, model); connections
// and chunks default to the recorded run's), --record (write this run's shares as this processor's record), --node-args="FLAGS" (more flags for the server's node, e.g.
// "--max-semi-space-size=8", to compare V8 settings), --warmup S (15: seconds of load on each route
// before its measured run; with 3, V8 was still compiling the chat's code on its own threads in
// the measured seconds, about 0.15 ms a chat: docs/benchmarks.md, "The warm-up and the heap's
// growth").
import autocannon, { type Request, type Result } from "autocannon";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { buildServer } from "./build-server.js";
import { question, seededRandom } from "./corpus.js";
import { checkRatios, ratiosOf, readRecorded, RECORDED_FILE, recordRatios, type Recorded } from "./http-bench-ratios.js";
import { cpuSeconds, memoryMiB, startChild, type Child } from "./processes.js";
import { machineLine, markdownTable, processorName, report, verdict, type Measured, type Target } from "./report.js";
import { beirCorpus, seedDatabase } from "./seed.js";

const { values: flags } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string" },
    chunks: { type: "string" },
    only: { type: "string" },
    "no-baseline": { type: "boolean", default: false },
    profile: { type: "string" },
    perf: { type: "boolean", default: false },
    "stub-core": { type: "boolean", default: false },
    rate: { type: "string" },
    corpus: { type: "string" },
    built: { type: "boolean", default: false },
    tsx: { type: "boolean", default: false },
    check: { type: "boolean", default: false },
    record: { type: "boolean", default: false },
    "node-args": { type: "string" },
    warmup: { type: "string", default: "15" },
  },
});
const MODE = flags.built ? "built" : flags.tsx ? "tsx" : "bundle";
const recorded: Recorded | undefined = flags.check ? readRecorded() : undefined;
if (flags.check && recorded === undefined) {
  process.stderr.write(`bench:http --check: nothing is recorded for this processor (${processorName()}); take a quiet run with --record first.\n`);
  process.exit(2);
}
if (recorded !== undefined) refuseUnlikeRecorded(recorded);
const DURATION = Number(flags.duration);
const CONNECTIONS = Number(flags.connections ?? recorded?.connections ?? 10);
const CHUNKS = Number(flags.chunks ?? recorded?.chunks ?? 10_000);
const WARMUP_SECONDS = Number(flags.warmup);
const KEYS = 20_000;
/** High enough that neither limit nor the quota refuses a benchmark request (each is said in the output). */
const LIMITS = { keyRateLimit: 1_000_000, conversationRateLimit: 1_000_000, monthlyMessages: 1_000_000_000 };
const TARGETS: Record<"list" | "chat", Target> = { list: { rps: 20_000 }, chat: { rps: 1_500, p99: 30 } };

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = fileURLToPath(new URL(".", import.meta.url));
const TSX = ["--conditions=source", "--import", "tsx"];

const say = (line = "") => process.stdout.write(`${line}\n`);

/** A check compares shares measured alike: every route, no held rate, the recorded load and server build. */
function refuseUnlikeRecorded(record: Recorded): void {
  const unlike = [
    flags.only !== undefined || flags["no-baseline"] ? "--check needs every run (no --only, no --no-baseline)" : undefined,
    flags.rate !== undefined ? "--check compares saturated runs (no --rate)" : undefined,
    flags.connections !== undefined && Number(flags.connections) !== record.connections ? `the record was taken with --connections ${record.connections}` : undefined,
    flags.chunks !== undefined && Number(flags.chunks) !== record.chunks ? `the record was taken with --chunks ${record.chunks}` : undefined,
    flags.corpus !== undefined ? "the record was taken on the generated knowledge base (no --corpus)" : undefined,
    MODE !== record.server ? `the record was taken with the server ${record.server === "bundle" ? "bundled from the sources (no --built, no --tsx)" : `run with --${record.server}`}` : undefined,
  ].filter((reason) => reason !== undefined);
  if (unlike.length === 0) return;
  process.stderr.write(`bench:http --check: ${unlike.join("; ")}.\n`);
  process.exit(2);
}

const beir = flags.corpus === undefined ? undefined : beirCorpus(flags.corpus);
/** Each connection loops over its own requests; together they use every key once per round. */
const REQUESTS_PER_CONNECTION = Math.ceil(KEYS / CONNECTIONS);

/** The message of a connection's index-th chat request. */
function messageFor(connection: number, index: number, random: () => number): string {
  if (beir === undefined) return question(random);
  return beir.questions[(connection * REQUESTS_PER_CONNECTION + index) % beir.questions.length]!;
}

/** Per connection, a list of distinct requests it sends in a loop: keys, messages and sessions vary. */
function requestsFor(route: "list" | "chat", connection: number, keys: string[], chatbotId: string): Request[] {
  const random = seededRandom(1_000 + connection);
  return Array.from({ length: REQUESTS_PER_CONNECTION }, (_, index): Request => {
    const authorization = `Bearer ${keys[(connection * REQUESTS_PER_CONNECTION + index) % keys.length]}`;
    if (route === "list") return { method: "GET", path: "/v1/chatbots", headers: { authorization } };
    return {
      method: "POST",
      path: `/v1/chatbots/${chatbotId}/chat`,
      headers: { authorization, "content-type": "application/json" },
      // 25 sessions per connection: conversations grow as real ones do, with 10 messages of history.
      body: JSON.stringify({ message: messageFor(connection, index, random), session_id: `visitor-${connection}-${index % 25}` }),
    };
  });
}

/** The requests of each connection, built once per route (not inside the measured seconds). */
function requestLists(route: "list" | "chat", keys: string[], chatbotId: string): (connection: number) => Request[] {
  const lists = Array.from({ length: CONNECTIONS }, (_, connection) => requestsFor(route, connection, keys, chatbotId));
  return (connection) => lists[connection % CONNECTIONS]!;
}

async function drive(url: string, requests: (connection: number) => Request[], seconds: number): Promise<Result> {
  let connection = 0;
  const rate = flags.rate === undefined ? {} : { overallRate: Number(flags.rate) };
  return autocannon({ url, connections: CONNECTIONS, duration: seconds, ...rate, setupClient: (client) => client.setRequests(requests(connection++)) });
}

/**
 * One measured run (after a warm-up), with the CPU seconds each process spent in it. With
 * `warmEveryKey`, the warm-up also sends each connection's whole list once, so the measured
 * seconds see the server's steady state (every key read once since start), not its first
 * lookup of each of the 20,000 keys.
 */
async function measure(
  name: string,
  url: string,
  requests: (connection: number) => Request[],
  pids: { server?: number; provider?: number },
  options: { warmEveryKey?: boolean } = {},
): Promise<Measured> {
  await drive(url, requests, WARMUP_SECONDS);
  if (options.warmEveryKey === true) {
    let connection = 0;
    await autocannon({ url, connections: CONNECTIONS, amount: KEYS, setupClient: (client) => client.setRequests(requests(connection++)) });
  }
  // With --perf, the moment to start `perf record -p PID` on exactly the measured seconds.
  if (flags.perf) say(`Measuring ${name} for ${DURATION} s now (server pid ${String(pids.server)}).`);
  const before = { server: cpuSeconds(pids.server), provider: cpuSeconds(pids.provider), client: process.cpuUsage() };
  const result = await drive(url, requests, DURATION);
  const client = process.cpuUsage(before.client);
  const delta = (now: number | undefined, then: number | undefined) => (now === undefined || then === undefined ? undefined : now - then);
  return {
    name,
    result,
    serverCpu: delta(cpuSeconds(pids.server), before.server),
    providerCpu: delta(cpuSeconds(pids.provider), before.provider),
    clientCpu: (client.user + client.system) / 1e6,
  };
}

async function main(): Promise<void> {
  say(machineLine());
  say(`Load: ${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up then ${DURATION} s per route${flags.rate === undefined ? "" : `, held at ${flags.rate} requests/s`}; client, server and fake provider on this machine.`);
  say(`Limits raised so they refuse nothing: PARLEY_KEY_RATE_LIMIT=${LIMITS.keyRateLimit}, PARLEY_CONVERSATION_RATE_LIMIT=${LIMITS.conversationRateLimit}, plan quota ${LIMITS.monthlyMessages.toLocaleString("en")} messages/month; requests rotate over ${KEYS.toLocaleString("en")} keys (at most one request per key per second at 20,000 req/s, as the default limit of 60 a minute would require).`);
  const folder = mkdtempSync(join(tmpdir(), "parley-http-bench-"));
  const folders = [folder];
  let bundleFolder: string | undefined;
  const children: Child[] = [];
  try {
    const provider = await startChild({ nodeArgs: TSX, script: join(BENCH, "fake-provider.ts"), env: { ...process.env }, cwd: ROOT, ready: /^(http:\S+)$/m });
    children.push(provider.child);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      PARLEY_DB: join(folder, "parley.db"),
      OPENAI_API_KEY: "sk-bench",
      OPENAI_BASE_URL: provider.match,
      PARLEY_KEY_RATE_LIMIT: String(LIMITS.keyRateLimit),
      PARLEY_CONVERSATION_RATE_LIMIT: String(LIMITS.conversationRateLimit),
    };
    const seeded = await seedDatabase(env, {
      chunks: CHUNKS,
      keys: KEYS,
      monthlyMessages: LIMITS.monthlyMessages,
      ...(beir === undefined ? {} : { documents: beir.documents }),
    });
    const knowledge = beir === undefined ? "generated support articles, generated questions" : `${flags.corpus} documents and queries`;
    say(
      `Seeded: 1 chatbot, ${seeded.chunks.toLocaleString("en")} chunks in ${seeded.documents} documents (${knowledge}; ingested in ${seeded.ingestSeconds.toFixed(1)} s ` +
        `through admin.ingestDocument with the local embedder), ${KEYS.toLocaleString("en")} API keys.`,
    );

    const bundle = MODE === "tsx" ? undefined : await buildServer({ sourcemap: flags.profile !== undefined });
    if (bundle !== undefined) folders.push((bundleFolder = bundle.folder));
    const profile = [...(flags["node-args"]?.split(" ").filter((flag) => flag !== "") ?? []), ...(flags.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${flags.profile}`]), ...(flags.perf ? ["--perf-basic-prof"] : [])];
    const accessLog = readAccessLog();
    const started = performance.now();
    const server = await startChild({
      nodeArgs: MODE === "tsx" ? [...TSX, ...profile] : profile,
      script: MODE === "built" ? join(ROOT, "packages/server/bin/parley.js") : (bundle?.cli ?? join(BENCH, "serve-from-source.ts")),
      args: ["serve", "--port", "0", "--host", "127.0.0.1"],
      env,
      cwd: ROOT,
      ready: /listening on (http:\/\/[\d.:]+)/,
      onStdout: accessLog.take,
    });
    children.push(server.child);
    const pids = { server: server.child.process.pid, provider: provider.child.process.pid };
    const idle = memoryMiB(pids.server);
    const how = { built: "built (bin/parley.js on the installed dist)", tsx: "from source (tsx)", bundle: "bundled from the current sources by tsup (as the package build)" }[MODE];
    say(`Server: parley serve ${how}, pid ${String(pids.server)}, access log through a pipe read by this process, RSS at start ${idle ? idle.rss.toFixed(0) : "n/a"} MiB.`);
    say();

    const runs: { run: Measured; target?: Target }[] = [];
    const guarded: { bare?: Measured; list?: Measured; chat?: Measured } = {};
    if (!flags["no-baseline"] && flags.only === undefined) {
      const bare = await startChild({
        nodeArgs: [],
        script: join(BENCH, "bare-server.mjs"),
        env: { PATH: env.PATH },
        cwd: ROOT,
        ready: /^(http:\S+)$/m,
      });
      children.push(bare.child);
      const baseline = await measure("baseline (bare node:http answering [])", bare.match, () => [{ method: "GET", path: "/" }], { server: bare.child.process.pid });
      await bare.child.stop();
      runs.push({ run: baseline });
      guarded.bare = baseline;
      say(report(baseline));
    }
    if (flags["stub-core"] || (!flags["no-baseline"] && flags.only === undefined)) {
      const stub = await startChild({
        nodeArgs: bundle === undefined ? TSX : [],
        script: bundle?.stubCore ?? join(BENCH, "stub-core-server.ts"),
        env: { PATH: env.PATH },
        cwd: ROOT,
        ready: /^(http:\S+)$/m,
        onStdout: readAccessLog().take,
      });
      children.push(stub.child);
      const layer = await measure("GET /v1/chatbots, HTTP layer on a stub core", stub.match, requestLists("list", seeded.keys, seeded.chatbotId), { server: stub.child.process.pid });
      await stub.child.stop();
      runs.push({ run: layer });
      say(report(layer));
    }
    // The server reads its keyword index ahead after a start, in slices between requests: measured
    // during that, a route would be charged for it.
    const warmedUp = await accessLog.warmedUp(server.child);
    say(`Server: keyword index warmed up ${((warmedUp - started) / 1000).toFixed(1)} s after start.`);
    const routes = {
      list: () => measure("GET /v1/chatbots", server.match, requestLists("list", seeded.keys, seeded.chatbotId), pids, { warmEveryKey: true }),
      chat: () => measure("POST /v1/chatbots/{id}/chat", server.match, requestLists("chat", seeded.keys, seeded.chatbotId), pids),
    };
    for (const name of ["list", "chat"] as const) {
      if (flags.only !== undefined && flags.only !== name) continue;
      const run = await routes[name]();
      runs.push({ run, target: TARGETS[name] });
      guarded[name] = run;
      say(report(run));
      say(verdict(run, TARGETS[name]));
    }
    const memory = memoryMiB(pids.server);
    say();
    say(`Server memory: peak RSS ${memory ? memory.peak.toFixed(0) : "n/a"} MiB, RSS now ${memory ? memory.rss.toFixed(0) : "n/a"} MiB.`);
    const faults = server.child.stderr().split("\n").filter((line) => line.includes('"level":"error"'));
    if (faults.length > 0) say(`Server logged ${faults.length} faults; first: ${faults[0]!.slice(0, 400)}`);
    say(`Access log: ${accessLog.lines().toLocaleString("en")} lines read from the server's stdout.`);
    say(`Load average at the end: ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
    say();
    say(markdownTable(runs, memory?.peak));
    const ratios = ratiosOf(guarded);
    if (ratios !== undefined) {
      say();
      say(ratios.text);
      if (recorded !== undefined) {
        const check = checkRatios(ratios.shares, recorded);
        say(check.text);
        if (!check.ok) process.exitCode = 1;
      }
      if (flags.record) {
        recordRatios({ shares: ratios.shares, connections: CONNECTIONS, chunks: CHUNKS, server: MODE, machine: machineLine(), command: `npm run bench:http -- ${process.argv.slice(2).join(" ")}` });
        say(`Recorded in ${RECORDED_FILE}.`);
      }
    } else if (flags.record) {
      say("Nothing recorded: --record needs the bare baseline and both routes in one run.");
      process.exitCode = 1;
    }
  } finally {
    for (const child of children.reverse()) await child.stop();
    // The bundle goes, its source maps stay with the profile (scripts/cpuprofile-steps.mjs reads them).
    if (flags.profile !== undefined && bundleFolder !== undefined && existsSync(bundleFolder)) {
      for (const name of readdirSync(bundleFolder)) if (name.endsWith(".js.map")) copyFileSync(join(bundleFolder, name), join(flags.profile, name));
    }
    for (const each of folders) rmSync(each, { recursive: true, force: true });
  }
}

/**
 * The server's stdout, read as a log collector would (so the server writes its access log into a
 * pipe, as under systemd or Docker): lines are counted, not kept, and the keyword index's
 * warm-up line is watched for.
 */
function readAccessLog() {
  let lines = 0;
  let seen = "";
  let warmed: (() => void) | undefined;
  let warmedAt: number | undefined;
  return {
    take: (chunk: Buffer) => {
      for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
      if (warmedAt !== undefined) return;
      // Only until the warm-up line has gone by (the first seconds); a line may straddle two chunks.
      seen = seen.slice(-64) + chunk.toString("latin1");
      if (seen.includes('"event":"search_warmed_up"')) {
        warmedAt = performance.now();
        warmed?.();
      }
    },
    lines: () => lines,
    /** When the warm-up ended (performance.now()); a failed warm-up (on stderr) ends the wait too. */
    warmedUp: async (child: Child): Promise<number> => {
      const failed = setInterval(() => {
        if (child.stderr().includes("search_warm_up_failed")) warmed?.();
      }, 100);
      if (warmedAt === undefined) await new Promise<void>((resolve) => (warmed = resolve));
      clearInterval(failed);
      return warmedAt ?? performance.now();
    },
  };
}

await main();
