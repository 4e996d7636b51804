// `npm run bench:widget-routes`: what the widget's public routes add to a chat
// (docs/design.md §14). The real server (`parley serve` from source, real SQLite in a temp dir)
// in its own process; a fake OpenAI in this process that streams its answer and notes when
// each request reached it and when it wrote its first token.
//
// 1. Server overhead to the first delta: `POST /v1/widget/{id}/messages` with
//    `Accept: text/event-stream`, one at a time (each waits for the previous stream's end: a
//    visitor's next message finds the server idle); for each, (client: request sent → first
//    `event: delta` read) minus (fake: request read → first token written), the median and p90,
//    with the load average before and after; and its return half alone, fake's first token given →
//    client's first delta read (issue 27's figure; the fake and the client share this process's
//    clock). Two kinds, alternated: a new TCP connection per message (a visitor's first message,
//    or one after the page's idle connection closed: the server keeps one 5 s) and one kept-alive
//    connection (a browser's next messages on its open connection).
// 2. Throughput: JSON widget messages vs the spec's `POST /v1/chatbots/{id}/chat`, the same
//    fake, the same chatbot, autocannon with the same connections, one after the other.
// Options: --samples N (200 of each kind), --duration S (10), --connections N (10), --tsx (the
// server from the TypeScript sources through tsx; by default it is bundled from the current
// sources by tsup, as users run it and as `npm run bench:http` measures it: build-server.ts),
// --profile DIR (the server under --cpu-prof), --no-throughput (part 1 only).
import autocannon, { type Request } from "autocannon";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startFakeOpenAI, streamWith } from "@parley/providers/testing";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { buildServer } from "./build-server.js";
import { cpuSeconds, startChild, type Child } from "./processes.js";
import { machineLine } from "./report.js";

const { values: flags } = parseArgs({
  options: {
    samples: { type: "string", default: "200" },
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "10" },
    tsx: { type: "boolean", default: false },
    profile: { type: "string" },
    "no-throughput": { type: "boolean", default: false },
  },
});
const SAMPLES = Number(flags.samples);
const DURATION = Number(flags.duration);
const CONNECTIONS = Number(flags.connections);
const TARGET_OVERHEAD_MS = 5;

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = fileURLToPath(new URL(".", import.meta.url));
const TSX = ["--conditions=source", "--import", "tsx"];
const say = (line = "") => process.stdout.write(`${line}\n`);

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))]!;
};

/** One streamed widget message: ms from sending it to reading its first delta, and the moment (performance.now()) that delta was read. */
function firstDelta(url: string, path: string, token: string, message: string, agent: HttpAgent | false): Promise<{ total: number; seenAt: number }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ message });
    const started = performance.now();
    const outgoing = httpRequest(
      `${url}${path}`,
      { method: "POST", agent, headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", "content-type": "application/json", "content-length": Buffer.byteLength(body) } },
      (response) => {
        if (response.statusCode !== 200) reject(new Error(`status ${String(response.statusCode)}`));
        response.setEncoding("utf8");
        let text = "";
        let seenAt: number | undefined;
        response.on("data", (chunk: string) => {
          text += chunk;
          if (seenAt === undefined && text.includes("event: delta\n")) {
            seenAt = performance.now();
          }
        });
        // Settled at the stream's end (the reply stored and sent), so the next message finds the server idle, as a visitor's would.
        response.on("end", () => (seenAt === undefined ? reject(new Error(`no delta: ${text.slice(0, 300)}`)) : resolve({ total: seenAt - started, seenAt })));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

async function main() {
  const folder = mkdtempSync(join(tmpdir(), "parley-bench-widget-"));
  const children: Child[] = [];
  const bundles: string[] = [];
  // The fake's own time to first token, per request: read → first token written.
  let arrivedAt = 0;
  let ownTtft = 0;
  // When the fake gave its first token (for the provider's first token → the visitor's first delta).
  let firstTokenAt = 0;
  const fake = await startFakeOpenAI();
  fake.chat.respondWith(() => {
    arrivedAt = performance.now();
    const first = Promise.resolve().then(() => {
      firstTokenAt = performance.now();
      ownTtft = firstTokenAt - arrivedAt;
    });
    return streamWith([first, "The kettle", " comes with", " a 2-year", " warranty."]);
  });
  try {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      PARLEY_DB: join(folder, "parley.db"),
      OPENAI_API_KEY: "sk-bench",
      OPENAI_BASE_URL: fake.url,
      PARLEY_SECRET_KEY: "bench-widget-master-key-0123456789abcdef",
      PARLEY_KEY_RATE_LIMIT: "1000000",
      PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
      PARLEY_WIDGET_SESSIONS_PER_HOUR: "1000000",
      PARLEY_WIDGET_MESSAGES_PER_MINUTE: "1000000",
    };
    const runtime = openParley(loadConfig(env), { log: () => undefined });
    const { admin } = runtime.parley;
    await admin.setPlan("bench", 1_000_000_000);
    const user = await admin.createUser({ email: "bench@example.com", plan: "bench" });
    const chatKey = (await admin.createApiKey({ userId: user.id })).key;
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Widget bench", provider: "openai", model: "gpt-bench" });
    await admin.changeChatbot(chatbot.id, { widget: { enabled: true } });
    await admin.ingestDocument(chatbot.id, { source: "warranty.md", title: "Warranty", text: "Every kettle has a 2-year limited warranty. Descale it monthly with citric acid." });
    // Tokens signed with the same master key work against the server process.
    const widget = await runtime.parley.widget.find(chatbot.id);
    const tokens = Array.from({ length: CONNECTIONS + 1 }, () => runtime.parley.widget.startSession(widget, {}).token);
    // 0. The same measure without HTTP: the core's streamed chat in this process, for the share of the HTTP path.
    const owner = await runtime.parley.chatbotOwner(chatbot.id);
    const coreOverheads: number[] = [];
    for (let index = 0; index < SAMPLES + 20; index += 1) {
      const started = performance.now();
      for await (const event of runtime.parley.chatStream(owner, chatbot.id, { message: `How long is the warranty? (${index})`, session_id: "bench-core" })) {
        if (event.type === "delta") break;
      }
      if (index >= 20) coreOverheads.push(performance.now() - started - ownTtft);
      await runtime.parley.whenRepliesSettled();
    }
    runtime.close();

    const bundle = flags.tsx ? undefined : await buildServer();
    if (bundle !== undefined) bundles.push(bundle.folder);
    const server = await startChild({
      nodeArgs: [...(bundle === undefined ? TSX : []), ...(flags.profile === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${flags.profile}`])],
      script: bundle?.cli ?? join(BENCH, "serve-from-source.ts"),
      args: ["serve", "--port", "0", "--host", "127.0.0.1"],
      env,
      cwd: ROOT,
      ready: /listening on (http:\/\/[\d.:]+)/,
      stdout: "ignore",
    });
    children.push(server.child);
    const url = server.match;
    const pid = server.child.process.pid;
    say(machineLine());
    say(`Load average (1 min) at the start: ${loadavg()[0]!.toFixed(1)}.`);
    say(`Server: parley serve ${bundle === undefined ? "from source (tsx)" : "bundled from the current sources by tsup (as the package build)"}, pid ${String(pid)}; fake OpenAI streaming in the benchmark's process.`);

    // 1. Overhead to the first delta, one request at a time (20 warm-up requests of each kind first),
    //    alternating a new connection per message with one kept-alive connection, so drift weighs on both.
    const path = `/v1/widget/${chatbot.id}/messages`;
    const kept = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    const modes = [
      { label: "a new connection per message (a visitor's first message: the page's idle connection has closed)", agent: false as const, overheads: [] as number[], totals: [] as number[], tokenToDelta: [] as number[] },
      { label: "one kept-alive connection (a browser's next messages on its open connection)", agent: kept, overheads: [] as number[], totals: [] as number[], tokenToDelta: [] as number[] },
    ];
    const loadBefore = loadavg()[0]!;
    for (let index = 0; index < SAMPLES + 20; index += 1) {
      for (const mode of modes) {
        const { total, seenAt } = await firstDelta(url, path, tokens[0]!, `How long is the warranty? (${index})`, mode.agent);
        if (index < 20) continue;
        mode.totals.push(total);
        mode.overheads.push(total - ownTtft);
        mode.tokenToDelta.push(seenAt - firstTokenAt);
      }
    }
    kept.destroy();
    const loadAfter = loadavg()[0]!;
    say();
    say(`1. Request → first SSE delta, ${SAMPLES} sequential streamed widget messages of each kind, alternated (one conversation, history growing to 10 turns); load average (1 min) ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after:`);
    say(`   the core alone in one process (chatStream, no HTTP): median ${percentile(coreOverheads, 0.5).toFixed(2)} ms, p90 ${percentile(coreOverheads, 0.9).toFixed(2)} ms after the fake's own time`);
    for (const mode of modes) {
      const median = percentile(mode.overheads, 0.5);
      const relay = percentile(mode.tokenToDelta, 0.5);
      say(`   ${mode.label}:`);
      say(`     client-side time to first delta: median ${percentile(mode.totals, 0.5).toFixed(2)} ms, p90 ${percentile(mode.totals, 0.9).toFixed(2)} ms`);
      say(`     server overhead (minus the fake's own time to first token): median ${median.toFixed(2)} ms, p90 ${percentile(mode.overheads, 0.9).toFixed(2)} ms — target < ${TARGET_OVERHEAD_MS} ms: ${median < TARGET_OVERHEAD_MS ? "met" : "NOT met"} (load ${loadBefore.toFixed(1)}–${loadAfter.toFixed(1)})`);
      say(`     the provider's first token → the visitor's first delta (the return half alone): median ${relay.toFixed(2)} ms, p90 ${percentile(mode.tokenToDelta, 0.9).toFixed(2)} ms — target ≤ ${TARGET_OVERHEAD_MS} ms: ${relay <= TARGET_OVERHEAD_MS ? "met" : "NOT met"}`);
    }

    // 2. Throughput, JSON answers: the widget route, then the spec's chat route.
    const run = async (label: string, requests: (connection: number) => Request[]) => {
      const cpuBefore = cpuSeconds(pid);
      let connections = 0;
      const result = await autocannon({
        url,
        connections: CONNECTIONS,
        duration: DURATION,
        setupClient: (client) => client.setRequests(requests(connections++)),
      });
      const cpu = cpuBefore === undefined ? undefined : cpuSeconds(pid)! - cpuBefore;
      const ok = result["2xx"];
      say(
        `   ${label}: ${(ok / DURATION).toFixed(0)} replies/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}, server CPU ${cpu === undefined ? "n/a" : `${((cpu / ok) * 1000).toFixed(2)} ms a reply`}`,
      );
      return ok / DURATION;
    };
    if (flags["no-throughput"]) return;
    say();
    say(`2. Throughput, JSON answers, ${CONNECTIONS} connections × ${DURATION} s each, the same chatbot and fake:`);
    const widgetRequests = (connection: number): Request[] =>
      Array.from({ length: 25 }, (_, index) => ({
        method: "POST",
        path,
        headers: { authorization: `Bearer ${tokens[(connection % CONNECTIONS) + 1]!}`, "content-type": "application/json" },
        body: JSON.stringify({ message: `Question ${index}: how do I descale it?` }),
      }));
    const chatRequests = (connection: number): Request[] =>
      Array.from({ length: 25 }, (_, index) => ({
        method: "POST",
        path: `/v1/chatbots/${chatbot.id}/chat`,
        headers: { authorization: `Bearer ${chatKey}`, "content-type": "application/json" },
        body: JSON.stringify({ message: `Question ${index}: how do I descale it?`, session_id: `bench-${connection}` }),
      }));
    // Alternated, so warm-up and a busy machine's drift weigh on both routes alike.
    let widgetRate = 0;
    let chatRate = 0;
    for (let round = 0; round < 2; round += 1) {
      widgetRate += (await run(`round ${round + 1} POST /v1/widget/{id}/messages`, widgetRequests)) / 2;
      chatRate += (await run(`round ${round + 1} POST /v1/chatbots/{id}/chat   `, chatRequests)) / 2;
    }
    say(`   mean of the rounds: widget ${widgetRate.toFixed(0)} replies/s, chat route ${chatRate.toFixed(0)} replies/s; widget / chat route: ${((widgetRate / chatRate) * 100).toFixed(0)} %`);
  } finally {
    for (const child of children) await child.stop();
    await fake.close();
    rmSync(folder, { recursive: true, force: true });
    for (const bundle of bundles) rmSync(bundle, { recursive: true, force: true });
  }
}

await main();
