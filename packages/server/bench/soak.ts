// `npm run soak -- --minutes N [--rate R]`: holds a chat load of R requests/s (default 73, half of
// the chat maximum in docs/benchmarks.md) against the real server (SQLite in a temporary folder,
// 10,000 chunks, the instant fake OpenAI on 127.0.0.1 in its own process) for N minutes. Every
// 10 s it prints the answers and errors of the window and the server's RSS, heap and event-loop
// delay; at the end, whether memory grew after the warm-up (the first fifth of the run, at most
// two minutes). Options: --connections N (10), --chunks N (10000), --interval S (10).
import autocannon, { type Request } from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { question, seededRandom } from "./corpus.js";
import { memoryMiB, startChild, type Child } from "./processes.js";
import { seedDatabase } from "./seed.js";
import { summariseSoak, type SoakSample } from "./soak-summary.js";

const { values: flags } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    rate: { type: "string", default: "73" },
    connections: { type: "string", default: "10" },
    chunks: { type: "string", default: "10000" },
    interval: { type: "string", default: "10" },
  },
});
const MINUTES = Number(flags.minutes);
const RATE = Number(flags.rate);
const CONNECTIONS = Number(flags.connections);
const INTERVAL_S = Number(flags.interval);
const KEYS = 1_000;
const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = fileURLToPath(new URL(".", import.meta.url));
const TSX = ["--conditions=source", "--import", "tsx"];
const say = (line = "") => process.stdout.write(`${line}\n`);
const load = () => loadavg().map((value) => value.toFixed(2)).join(" ");

/** Each connection's chats: keys, questions and 25 sessions of its own, so conversations grow. */
function chatRequests(connection: number, keys: string[], chatbotId: string): Request[] {
  const random = seededRandom(7_000 + connection);
  return Array.from({ length: 2_000 }, (_, index): Request => ({
    method: "POST",
    path: `/v1/chatbots/${chatbotId}/chat`,
    headers: { authorization: `Bearer ${keys[(connection * 2_000 + index) % keys.length]}`, "content-type": "application/json" },
    body: JSON.stringify({ message: question(random), session_id: `soak-${connection}-${index % 25}` }),
  }));
}

async function main(): Promise<void> {
  say(`Machine: ${cpus()[0]?.model ?? "unknown CPU"}, ${cpus().length} cores, Node ${process.version}, load average ${load()}`);
  say(`Soak: ${MINUTES} min of chat at ${RATE} requests/s over ${CONNECTIONS} connections; a line every ${INTERVAL_S} s.`);
  const folder = mkdtempSync(join(tmpdir(), "parley-soak-"));
  const children: Child[] = [];
  try {
    const provider = await startChild({ nodeArgs: TSX, script: join(BENCH, "fake-provider.ts"), env: { ...process.env }, cwd: ROOT, ready: /^(http:\S+)$/m });
    children.push(provider.child);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      PARLEY_DB: join(folder, "parley.db"),
      OPENAI_API_KEY: "sk-soak",
      OPENAI_BASE_URL: provider.match,
      PARLEY_KEY_RATE_LIMIT: "1000000",
      PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
      PARLEY_SOAK_SAMPLE_MS: String(INTERVAL_S * 1000),
    };
    const seeded = await seedDatabase(env, { chunks: Number(flags.chunks), keys: KEYS, monthlyMessages: 1_000_000_000 });
    say(`Seeded: ${seeded.chunks} chunks, ${KEYS} keys; limits raised so they refuse nothing (PARLEY_KEY_RATE_LIMIT, PARLEY_CONVERSATION_RATE_LIMIT, plan quota).`);
    const server = await startChild({ nodeArgs: TSX, script: join(BENCH, "soak-server.ts"), args: ["serve", "--port", "0"], env, cwd: ROOT, ready: /listening on (http:\/\/[\d.:]+)/, stdout: "ignore" });
    children.push(server.child);
    const pid = server.child.process.pid;
    const lists = Array.from({ length: CONNECTIONS }, (_, connection) => chatRequests(connection, seeded.keys, seeded.chatbotId));
    let window = { answers: 0, errors: 0, refused: 0, latencies: [] as number[] };
    const samples: SoakSample[] = [];
    let connection = 0;
    const started = performance.now();
    const finished = new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        { url: server.match, connections: CONNECTIONS, duration: MINUTES * 60, overallRate: RATE, setupClient: (client) => client.setRequests(lists[connection++ % CONNECTIONS]!) },
        (error) => (error ? reject(error) : resolve()),
      );
      instance.on("response", (_client, status, _bytes, ms) => {
        window.answers += 1;
        if (status !== 200) window.refused += 1;
        window.latencies.push(ms);
      });
      instance.on("reqError", () => (window.errors += 1));
    });
    say("   time  answers/s  non-200  errors  p99 ms   RSS MiB  heap MiB  loop p99 ms  loop max ms");
    const ticker = setInterval(() => {
      const lines = server.child.stderr().split("\n").filter((line) => line.startsWith("soak-sample "));
      const inner = lines.length === 0 ? undefined : (JSON.parse(lines.at(-1)!.slice("soak-sample ".length)) as { heapUsedMiB: number; loopP99Ms: number; loopMaxMs: number });
      const sorted = window.latencies.sort((a, b) => a - b);
      const sample: SoakSample = {
        seconds: Math.round((performance.now() - started) / 1000),
        answersPerSecond: window.answers / INTERVAL_S,
        refused: window.refused,
        errors: window.errors,
        p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
        rssMiB: memoryMiB(pid)?.rss ?? Number.NaN,
        heapMiB: inner?.heapUsedMiB ?? Number.NaN,
        loopP99Ms: inner?.loopP99Ms ?? Number.NaN,
        loopMaxMs: inner?.loopMaxMs ?? Number.NaN,
      };
      samples.push(sample);
      window = { answers: 0, errors: 0, refused: 0, latencies: [] };
      const cell = (value: number, width: number, digits = 0) => value.toFixed(digits).padStart(width);
      say(`${cell(sample.seconds, 6)} s ${cell(sample.answersPerSecond, 9, 1)} ${cell(sample.refused, 8)} ${cell(sample.errors, 7)} ${cell(sample.p99Ms, 7)} ${cell(sample.rssMiB, 9, 1)} ${cell(sample.heapMiB, 9, 1)} ${cell(sample.loopP99Ms, 12, 1)} ${cell(sample.loopMaxMs, 12, 1)}`);
    }, INTERVAL_S * 1000);
    await finished;
    clearInterval(ticker);
    const faults = server.child.stderr().split("\n").filter((line) => line.includes('"level":"error"'));
    say();
    say(summariseSoak(samples, { minutes: MINUTES, faults: faults.length }));
    say(`Load average at the end: ${load()}`);
  } finally {
    for (const child of children.reverse()) await child.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
