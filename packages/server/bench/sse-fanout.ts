// `npm run bench:sse`: the cost of the live event stream's fan-out (docs/design.md §9–§10).
// The real server (`parley serve` from source, real SQLite in a temp dir) in its own process,
// an instantly answering fake OpenAI in another; this process opens N event streams with the
// admin keys of one user, so every event of that user goes to every stream, and fires events
// at a steady rate: visitors' chats (3 events each: conversation.started, message.received,
// message.sent) and, every --agent-every ticks, an agent's reply to a fresh conversation
// (conversation.takeover_started, message.sent). It reports deliveries per second to all
// streams, the delivery latency (arrival on the stream minus the event's outbox timestamp,
// one clock), the server's CPU, and checks that every stream got every event.
// Options: --streams N (1000), --rate CHATS_PER_S (20), --duration S (20), --agent-every N (5).
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, type ClientRequest } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { cpuSeconds, memoryMiB, startChild, type Child } from "./processes.js";
import { machineLine } from "./report.js";

const { values: flags } = parseArgs({
  options: {
    streams: { type: "string", default: "1000" },
    rate: { type: "string", default: "20" },
    duration: { type: "string", default: "20" },
    "agent-every": { type: "string", default: "5" },
  },
});
const STREAMS = Number(flags.streams);
const RATE = Number(flags.rate);
const DURATION = Number(flags.duration);
const AGENT_EVERY = Number(flags["agent-every"]);
/** Streams per admin key: opening one is one request against that key's limit. */
const STREAMS_PER_KEY = 10;

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const BENCH = fileURLToPath(new URL(".", import.meta.url));
const TSX = ["--conditions=source", "--import", "tsx"];
const say = (line = "") => process.stdout.write(`${line}\n`);

/** What the streams received: deliveries, latencies in ms, and the event ids of each stream. */
const received = { deliveries: 0, lastAt: 0, latencies: [] as number[], counts: [] as number[], conversations: [] as string[] };

/** Opens one event stream; counts its events and measures each one's delay from its outbox time. */
function openStream(url: string, key: string, index: number, sockets: ClientRequest[]): Promise<void> {
  received.counts[index] = 0;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(`${url}/v1/admin/events`, { headers: { authorization: `Bearer ${key}` }, agent: false }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`stream ${index}: ${String(response.statusCode)}`));
      response.setEncoding("utf8");
      let pending = "";
      response.on("data", (chunk: string) => {
        if (pending === "" && chunk.startsWith(": connected")) resolve();
        pending += chunk;
        let boundary: number;
        while ((boundary = pending.indexOf("\n\n")) !== -1) {
          const block = pending.slice(0, boundary);
          pending = pending.slice(boundary + 2);
          const data = block.indexOf("\ndata: ");
          if (data === -1) continue;
          const now = Date.now();
          const body = JSON.parse(block.slice(data + 7)) as { type: string; timestamp: string; data: { conversation_id?: string; session_id?: string } };
          received.deliveries += 1;
          received.lastAt = performance.now();
          received.counts[index]! += 1;
          received.latencies.push(now - Date.parse(body.timestamp));
          if (index === 0 && body.type === "conversation.started") received.conversations.push(body.data.conversation_id!);
        }
      });
      response.on("error", () => undefined);
    });
    outgoing.on("error", reject);
    outgoing.end();
    sockets.push(outgoing);
  });
}

/** One JSON POST to the server; resolves with its status. */
async function post(url: string, key: string, body: unknown): Promise<number> {
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  await response.arrayBuffer();
  return response.status;
}

const percentile = (sorted: number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;

async function main() {
  const folder = mkdtempSync(join(tmpdir(), "parley-bench-sse-"));
  const children: Child[] = [];
  const sockets: ClientRequest[] = [];
  try {
    const provider = await startChild({ nodeArgs: TSX, script: join(BENCH, "fake-provider.ts"), env: { ...process.env }, cwd: ROOT, ready: /^(http:\S+)$/m });
    children.push(provider.child);
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      PARLEY_DB: join(folder, "parley.db"),
      OPENAI_API_KEY: "sk-bench",
      OPENAI_BASE_URL: provider.match,
      PARLEY_KEY_RATE_LIMIT: "1000000",
      PARLEY_ADMIN_KEY_RATE_LIMIT: "1000000",
      PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
    };
    const runtime = openParley(loadConfig(env), { log: () => undefined });
    const { admin } = runtime.parley;
    await admin.setPlan("bench", 1_000_000_000);
    const user = await admin.createUser({ email: "bench@example.com", plan: "bench" });
    const adminKeys: string[] = [];
    for (let index = 0; index < Math.ceil(STREAMS / STREAMS_PER_KEY); index += 1) adminKeys.push((await admin.createApiKey({ userId: user.id, scope: "admin" })).key);
    const chatKey = (await admin.createApiKey({ userId: user.id })).key;
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Fan-out", provider: "openai", model: "gpt-bench" });
    runtime.close();

    const server = await startChild({
      nodeArgs: TSX,
      script: join(BENCH, "serve-from-source.ts"),
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
    say(`Server: parley serve from source (tsx), pid ${String(pid)}; ${STREAMS} streams of one user; ${RATE} chats/s, an agent's reply every ${AGENT_EVERY} ticks instead of a chat; ${DURATION} s.`);

    for (let start = 0; start < STREAMS; start += 50) {
      await Promise.all(Array.from({ length: Math.min(50, STREAMS - start) }, (_, offset) => openStream(url, adminKeys[Math.floor((start + offset) / STREAMS_PER_KEY)]!, start + offset, sockets)));
    }
    const opened = memoryMiB(pid);
    say(`Opened ${STREAMS} streams; server RSS ${opened ? opened.rss.toFixed(0) : "n/a"} MiB.`);

    // Steady firing: one tick every 1/RATE s, measured from the start (no drift).
    let tick = 0;
    let refused = 0;
    let agentReplies = 0;
    const fire = async () => {
      tick += 1;
      const conversation = tick % AGENT_EVERY === 0 ? received.conversations.shift() : undefined;
      if (conversation !== undefined) {
        agentReplies += 1;
        const status = await post(`${url}/v1/admin/conversations/${conversation}/messages`, adminKeys[tick % adminKeys.length]!, { content: `Agent reply ${tick}` });
        if (status !== 201) refused += 1;
        return;
      }
      const status = await post(`${url}/v1/chatbots/${chatbot.id}/chat`, chatKey, { message: `Question ${tick}`, session_id: `visitor-${tick}` });
      if (status !== 200) refused += 1;
    };
    const cpuBefore = cpuSeconds(pid);
    const clientBefore = process.cpuUsage();
    const started = performance.now();
    const inFlight: Promise<void>[] = [];
    while (performance.now() - started < DURATION * 1000) {
      inFlight.push(fire());
      const next = started + (tick * 1000) / RATE;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - performance.now())));
    }
    await Promise.all(inFlight);
    const firedIn = (performance.now() - started) / 1000;
    // Every stream must get every event: wait until the counts stop changing and agree.
    let last = -1;
    while (received.deliveries !== last) {
      last = received.deliveries;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // The window ends at the last delivery, not after the idle wait above.
    const elapsed = (received.lastAt - started) / 1000;
    const cpu = (cpuSeconds(pid) ?? Number.NaN) - (cpuBefore ?? Number.NaN);
    const client = process.cpuUsage(clientBefore);
    const sorted = [...received.latencies].sort((a, b) => a - b);
    const [min, max] = [Math.min(...received.counts), Math.max(...received.counts)];
    const peak = memoryMiB(pid);

    say();
    say(`Fired ${tick} ticks (${tick - agentReplies} chats, ${agentReplies} agent replies) in ${firedIn.toFixed(1)} s, ${refused} refused; ${max} events each.`);
    say(`Every stream got every event: ${min === max ? "yes" : `NO (min ${min}, max ${max})`}.`);
    say(`Deliveries: ${received.deliveries} in ${elapsed.toFixed(1)} s (firing ${DURATION} s, until the last arrival) = ${(received.deliveries / elapsed).toFixed(0)} events/s to all streams (${(max / elapsed).toFixed(1)} events/s per stream).`);
    say(`Delivery latency (outbox write → arrival on the stream): p50 ${percentile(sorted, 0.5)} ms, p99 ${percentile(sorted, 0.99)} ms, max ${sorted.at(-1) ?? Number.NaN} ms.`);
    say(`Server CPU: ${cpu.toFixed(1)} s in ${elapsed.toFixed(1)} s = ${((cpu / elapsed) * 100).toFixed(0)}% of one core; RSS peak ${peak ? peak.peak.toFixed(0) : "n/a"} MiB.`);
    say(`Server CPU per delivery (chats and agent replies included): ${((cpu / received.deliveries) * 1e6).toFixed(1)} µs.`);
    say(`Load average (1 min) at the end: ${loadavg()[0]!.toFixed(1)}; other work on the machine slows every figure but the CPU ones.`);
    say(`This process (SSE clients + load): ${((client.user + client.system) / 1e6).toFixed(1)} s CPU, on the same 2 cores.`);
  } finally {
    for (const socket of sockets) socket.destroy();
    for (const child of children.reverse()) await child.stop();
    rmSync(folder, { recursive: true, force: true });
  }
}

await main();
