// `npm run bench:scaleout`: chat and list throughput of Parley on SQLite with one server process
// against PostgreSQL + Redis with one and with three processes, on this machine, same load. Each
// server is `parley serve` (the CLI from its sources, its access log sent to /dev/null); the
// PostgreSQL rows run it with PARLEY_DATABASE_URL naming a database made for the run (dropped
// after it) and PARLEY_REDIS_URL, each process with its own webhook dispatcher and ingestion
// runner as in production. The fake OpenAI answers at once; the chatbot has no documents, so a
// chat is the storage, limiter and HTTP path (the search index only finds the chatbot has no
// chunks). On PostgreSQL, Storage and the search index share the server (in-process vectors where
// it has no pgvector). Engines: PARLEY_TEST_DATABASE_URL and PARLEY_TEST_REDIS_URL (defaults: the
// machine's 127.0.0.1 servers). Options: --duration S (10), --connections N (12), --warmup S (3),
// --skip sqlite,three,profile, --waits (what PostgreSQL's backends wait for during each run),
// --rounds N (1: the three configurations N times in turn, then the goals' ratios by round and
// their medians),
// --profile DIR (each PostgreSQL server process writes a CPU profile there, `node --cpu-prof`,
// when it stops), --perf (every server runs with --perf-basic-prof, and each measured run is
// announced with its servers' pids, so `perf record -g -p PID,PID,…` names JavaScript functions),
// --node-args "FLAGS" (node flags for every server process, as bench:http's, for A/B runs).
// After the throughput table, each chat statement's share of PostgreSQL's CPU
// (chat-statement-cpu.ts).
import autocannon, { type Request, type Result } from "autocannon";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Parley } from "@parley/core";
import type pg from "pg";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { openRuntime } from "../src/runtime/open-runtime.js";
import { chatStatementCpu } from "./chat-statement-cpu.js";
import { sampleWaits } from "./wait-events.js";
import { startChild, type Child } from "./processes.js";

const { values: flags } = parseArgs({
  options: { duration: { type: "string", default: "10" }, connections: { type: "string", default: "12" }, skip: { type: "string", default: "" }, warmup: { type: "string", default: "3" }, waits: { type: "boolean", default: false }, profile: { type: "string" }, rounds: { type: "string", default: "1" }, perf: { type: "boolean", default: false }, "node-args": { type: "string", default: "" } },
});
/** Parts left out of this run (`--skip sqlite,profile`), for quicker A/B runs of the PostgreSQL rows. */
const SKIP = new Set(flags.skip.split(",").filter(Boolean));
const DURATION = Number(flags.duration);
const ROUNDS = Number(flags.rounds);
const CONNECTIONS = Number(flags.connections);
const KEYS = 300;
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = fileURLToPath(new URL(".", import.meta.url));
const TSX = ["--conditions=source", "--import", "tsx"];
const say = (line = "") => process.stdout.write(`${line}\n`);

/** A user with KEYS keys and one chatbot without documents; limits high enough to refuse nothing. */
async function seed(parley: Parley): Promise<{ keys: string[]; chatbotId: string }> {
  await parley.admin.setPlan("bench", 1_000_000_000);
  const user = await parley.admin.createUser({ email: "bench@example.com", plan: "bench" });
  const keys: string[] = [];
  for (let index = 0; index < KEYS; index += 1) keys.push((await parley.admin.createApiKey({ userId: user.id })).key);
  const chatbot = await parley.admin.createChatbot({ userId: user.id, name: "Bench", provider: "openai", model: "gpt-bench" });
  return { keys, chatbotId: chatbot.id };
}

function requests(route: "list" | "chat", connection: number, keys: string[], chatbotId: string): Request[] {
  return Array.from({ length: 200 }, (_, index): Request => {
    const authorization = `Bearer ${keys[(connection * 200 + index) % keys.length]}`;
    if (route === "list") return { method: "GET", path: "/v1/chatbots", headers: { authorization } };
    const body = JSON.stringify({ message: `How do I descale the kettle? (${index})`, session_id: `visitor-${connection}-${index % 25}` });
    return { method: "POST", path: `/v1/chatbots/${chatbotId}/chat`, headers: { authorization, "content-type": "application/json" }, body };
  });
}

/** Drives every URL at once with an equal share of the connections; returns the runs. */
async function drive(urls: string[], route: "list" | "chat", keys: string[], chatbotId: string, seconds: number): Promise<Result[]> {
  const share = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  let connection = 0;
  return Promise.all(
    urls.map((url) => autocannon({ url, connections: share, duration: seconds, setupClient: (client) => client.setRequests(requests(route, connection++, keys, chatbotId)) })),
  );
}

/**
 * CPU seconds PostgreSQL's backends serving this run's database have used so far, by pid, from
 * /proc/<pid>/schedstat (nanoseconds on a CPU; the server runs on this machine). Other databases'
 * backends (other people's work on the shared server) are left out.
 */
async function backendCpu(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
  const seconds = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      seconds.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e9);
    } catch {
      // The backend ended meanwhile.
    }
  }
  return seconds;
}

/** CPU seconds a process has used so far, all its threads (/proc/<pid>/task/<tid>/schedstat); 0 once it has ended. */
function processCpu(pid: number): number {
  let nanoseconds = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) nanoseconds += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    // It ended meanwhile.
  }
  return nanoseconds / 1e9;
}

/** The processes whose CPU a run's table shows, besides PostgreSQL's backends: the servers, Redis, this load generator. */
interface Watched {
  servers: number[];
  redis?: number;
}

/** CPU seconds used so far by the servers, Redis (shared with other work, if any) and this process. */
function machineCpu(watched: Watched): { servers: number; redis: number; generator: number } {
  const { user, system } = process.cpuUsage();
  return {
    servers: watched.servers.reduce((sum, pid) => sum + processCpu(pid), 0),
    redis: watched.redis === undefined ? 0 : processCpu(watched.redis),
    generator: (user + system) / 1e6,
  };
}

/** Warms up and measures each route on `urls`, printing a row each; the routes' requests a second. */
async function measure(name: string, urls: string[], keys: string[], chatbotId: string, watched: Watched, database?: pg.Pool): Promise<{ list: number; chat: number }> {
  const rates = { list: 0, chat: 0 };
  for (const route of ["list", "chat"] as const) {
    await drive(urls, route, keys, chatbotId, Number(flags.warmup)); // warm-up (each process compiles its hot code itself)
    const before = database === undefined ? undefined : await backendCpu(database);
    const waits = flags.waits && database !== undefined ? sampleWaits(database) : undefined;
    // With --perf, the moment to start `perf record -p PID,…` on exactly the measured seconds.
    if (flags.perf) say(`Measuring ${name}, ${route}, for ${DURATION} s now (server pids ${watched.servers.join(",")}).`);
    const machineBefore = machineCpu(watched);
    const results = await drive(urls, route, keys, chatbotId, DURATION);
    const machineAfter = machineCpu(watched);
    const waited = (await waits?.stop()) ?? [];
    const after = database === undefined ? undefined : await backendCpu(database);
    const total = results.reduce((sum, result) => sum + result.requests.total, 0);
    const non2xx = results.reduce((sum, result) => sum + result.non2xx + result.errors, 0);
    const p50 = Math.max(...results.map((result) => result.latency.p50));
    const p99 = Math.max(...results.map((result) => result.latency.p99));
    const perRequest = (seconds: number) => ((seconds * 1000) / Math.max(1, total)).toFixed(2);
    let postgres = 0;
    if (before !== undefined && after !== undefined) for (const [pid, used] of after) postgres += used - (before.get(pid) ?? 0);
    const servers = machineAfter.servers - machineBefore.servers;
    const redis = machineAfter.redis - machineBefore.redis;
    const generator = machineAfter.generator - machineBefore.generator;
    const cpu = [database === undefined ? "" : perRequest(postgres), perRequest(servers), watched.redis === undefined ? "" : perRequest(redis), perRequest(postgres + servers + redis), perRequest(generator)];
    rates[route] = Math.round(total / DURATION);
    say(`| ${name} | ${route} | ${rates[route]} | ${p50} | ${p99} | ${non2xx} | ${cpu.join(" | ")} |`);
    for (const line of waited) say(`    ${line}`);
  }
  return rates;
}

/** Chats a second of each engine in one round, for the goals' ratios. */
interface RoundRates {
  sqlite?: number;
  one?: number;
  three?: number;
}

/** The two goals, round by round and at the median: one process ≥ 60 % of SQLite's chats, three ≥ one. */
function goalLines(rounds: RoundRates[]): string[] {
  const percent = (part: number | undefined, whole: number | undefined) => (part === undefined || whole === undefined ? "" : `${Math.round((100 * part) / whole)} %`);
  const median = (values: (number | undefined)[]) => {
    const known = values.filter((value): value is number => value !== undefined).sort((a, b) => a - b);
    return known.length === 0 ? undefined : known[Math.floor((known.length - 1) / 2)]! / 2 + known[Math.ceil((known.length - 1) / 2)]! / 2;
  };
  const lines = ["\n| round | SQLite chats/s | PostgreSQL + Redis, 1 process | 3 processes | 1 process / SQLite (goal ≥ 60 %) | 3 / 1 (goal ≥ 100 %) |", "|---|---:|---:|---:|---:|---:|"];
  rounds.forEach((round, index) => lines.push(`| ${index + 1} | ${round.sqlite ?? ""} | ${round.one ?? ""} | ${round.three ?? ""} | ${percent(round.one, round.sqlite)} | ${percent(round.three, round.one)} |`));
  const ratios = {
    one: rounds.map((round) => (round.one === undefined || round.sqlite === undefined ? undefined : round.one / round.sqlite)),
    three: rounds.map((round) => (round.three === undefined || round.one === undefined ? undefined : round.three / round.one)),
  };
  const medianPercent = (values: (number | undefined)[]) => {
    const value = median(values);
    return value === undefined ? "" : `${Math.round(100 * value)} %`;
  };
  lines.push(`| median of the rounds' ratios | | | | ${medianPercent(ratios.one)} | ${medianPercent(ratios.three)} |`);
  return lines;
}

/**
 * A database of this run's own on the PostgreSQL server at `url` (dropped after it), so the
 * servers run as `parley serve` runs with PARLEY_DATABASE_URL, and the backends whose CPU is read
 * are this run's.
 */
async function createRunDatabase(url: string) {
  const { createPool } = await import("@parley/postgres");
  const name = `parley_bench_${randomUUID().replaceAll("-", "")}`;
  const server = createPool({ url, poolSize: 1 });
  await server.query(`CREATE DATABASE ${name}`);
  const runUrl = new URL(url);
  runUrl.pathname = `/${name}`;
  const pool = createPool({ url: runUrl.href, poolSize: 1 });
  return {
    url: runUrl.href,
    pool,
    async drop() {
      await pool.end();
      await server.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await server.end();
    },
  };
}

/** The Redis server's pid when it runs on this machine (INFO server), so its CPU can be read. */
async function redisProcessId(url: string): Promise<number | undefined> {
  const { connectRedis } = await import("@parley/redis");
  const redis = await connectRedis(url);
  try {
    const info = await redis.client.info("server");
    const pid = Number(/process_id:(\d+)/.exec(info)?.[1]);
    return Number.isInteger(pid) && readdirSync("/proc").includes(String(pid)) ? pid : undefined;
  } finally {
    await redis.close();
  }
}

const storageUrl = process.env.PARLEY_TEST_DATABASE_URL?.trim() || "postgres://postgres@127.0.0.1:5432/test";
const redisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || "redis://127.0.0.1:6379";
say(`# Parley scale-out throughput\nmachine: ${cpus()[0]?.model.trim()}, ${cpus().length} cores, Node ${process.version}`);
say(`load average before: ${loadavg().map((value) => value.toFixed(2)).join(" ")} (the machine is shared: other work running meanwhile shows here)`);
say(`load: autocannon, ${CONNECTIONS} connections in all (split evenly over the processes), ${DURATION} s after ${flags.warmup} s of warm-up, ${KEYS} keys, limits raised to refuse nothing`);
say("CPU ms/request: PostgreSQL's backends of the run's database; the server processes (all threads); Redis; their sum; the load generator (this process, autocannon)");
say("\n| engines | route | req/s | p50 ms | p99 ms | non-2xx | PostgreSQL | servers | Redis | sum | load generator |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
const folder = mkdtempSync(join(tmpdir(), "parley-scaleout-bench-"));
const children: Child[] = [];
try {
  const provider = await startChild({ nodeArgs: TSX, script: join(BENCH, "fake-provider.ts"), env: { ...process.env }, cwd: ROOT, ready: /^(http:\S+)$/m });
  children.push(provider.child);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    PARLEY_DB: join(folder, "parley.db"),
    OPENAI_API_KEY: "sk-bench",
    OPENAI_BASE_URL: provider.match,
    PARLEY_KEY_RATE_LIMIT: "1000000",
    PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
    PARLEY_SECRET_KEY: "a-master-key-for-the-scale-out-benchmark",
  };
  const sqlite = openParley(loadConfig(env));
  const seeded = await seed(sqlite.parley);
  sqlite.close();
  const redisPid = await redisProcessId(redisUrl);
  const serve = (serverEnv: Record<string, string>, nodeArgs: string[] = []) =>
    startChild({ nodeArgs: [...nodeArgs, ...flags["node-args"].split(" ").filter(Boolean), ...(flags.perf ? ["--perf-basic-prof"] : []), ...TSX], script: join(BENCH, "serve-from-source.ts"), args: ["serve", "--port", "0"], env: serverEnv, cwd: ROOT, ready: /listening on (http:\/\/[\d.:]+)/, stdout: "ignore" });
  /** SQLite's row: one `parley serve` on the seeded file; its chats a second. */
  const sqliteChats = async () => {
    const server = await serve(env);
    children.push(server.child);
    const { chat } = await measure("SQLite, 1 process", [server.match], seeded.keys, seeded.chatbotId, { servers: [server.child.process.pid!] });
    await server.child.stop();
    return chat;
  };
  /** A PostgreSQL + Redis row: `size` processes of `parley serve` on a database of their own; their chats a second. */
  const postgresChats = async (size: number) => {
    const profile = flags.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${flags.profile}`];
    const database = await createRunDatabase(storageUrl);
    const servers: Child[] = [];
    try {
      const scaledEnv = { ...env, PARLEY_DATABASE_URL: database.url, PARLEY_REDIS_URL: redisUrl };
      // Migrated and seeded here, so the processes start on an up-to-date schema.
      const seeder = await openRuntime(loadConfig(scaledEnv));
      const { keys, chatbotId } = await seed(seeder.parley).finally(() => seeder.close());
      const started = await Promise.all(Array.from({ length: size }, () => serve(scaledEnv, profile)));
      servers.push(...started.map(({ child }) => child));
      const watched = { servers: servers.map((server) => server.process.pid!), redis: redisPid };
      const name = `PostgreSQL + Redis, ${size} process${size > 1 ? "es" : ""}`;
      return (await measure(name, started.map(({ match }) => match), keys, chatbotId, watched, database.pool)).chat;
    } finally {
      for (const server of servers) await server.stop();
      await database.drop();
    }
  };
  // With --rounds, the configurations in turn, so a machine whose speed drifts moves all alike.
  const rounds: RoundRates[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    if (ROUNDS > 1) say(`| round ${round} of ${ROUNDS} | | | | | | | | | | |`);
    rounds.push({
      sqlite: SKIP.has("sqlite") ? undefined : await sqliteChats(),
      one: await postgresChats(1),
      three: SKIP.has("three") ? undefined : await postgresChats(3),
    });
  }
  for (const line of goalLines(rounds)) say(line);
  say(`\nload average after the throughput runs: ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
  // Where PostgreSQL's CPU goes in a chat: each statement's backend CPU, chats sent one at a time
  // on one connection, for this benchmark's chatbot (no documents) and for one with 20.
  for (const documents of SKIP.has("profile") ? [] : [0, 20]) {
    say();
    for (const line of await chatStatementCpu({ databaseUrl: storageUrl, env, chats: 300, documents })) say(line);
  }
  say(`\nload average after: ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
} finally {
  for (const child of children) await child.stop();
  rmSync(folder, { recursive: true, force: true });
}
