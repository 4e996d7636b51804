// Summarises a `--cpu-prof` profile of the server under `bench:http --only chat` by step of a chat:
// each sample goes to the first step (in the order below) any frame of its stack belongs to.
//
//   node scripts/cpuprofile-steps.mjs FILE.cpuprofile [CHATS] [--from S --to S]
//
// CHATS (the requests the profiled seconds answered, e.g. the measured ones plus the warm-up's)
// turns milliseconds into milliseconds a chat. --from/--to keep the samples between those
// seconds after the profile's start (e.g. only the chat route of a run that also drove the
// list). The profile samples wall time on the main thread: on a busy machine a preempted
// thread is charged to whatever ran, so compare shares of one run, or runs on a quiet machine.
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, join } from "node:path";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: "string" }, to: { type: "string" } } });
const [file, chatsText] = positionals;
if (file === undefined) {
  process.stderr.write("usage: node scripts/cpuprofile-steps.mjs FILE.cpuprofile [CHATS] [--from S --to S]\n");
  process.exit(2);
}
const chats = chatsText === undefined ? undefined : Number(chatsText);

/** Steps in order of precedence: a sample counts for the first one its stack matches. */
const STEPS = [
  ["search index warm-up (at start)", /\bwarmUp\b/],
  ["retrieval (keyword + vector arms, fusion, sources)", /retrieveContext|retrieveCandidates|keywordSearch|vectorSearch|hybridSearch|replySources|sqlite-search|core\/src\/vectors|core\/src\/retrieval/],
  ["write: user message, quota, conversation, events (acceptUserMessage)", /acceptUserMessage/],
  ["write: reply and its event (appendAssistantMessage)", /appendAssistantMessage/],
  ["write: the chat's grouped writes' transaction (BEGIN, COMMIT)", /\brunTogether\b|\brunAlone\b/],
  ["write: key's last use (touchApiKey)", /touchApiKey|writeTouches/],
  ["webhook dispatcher (fan-out, claims)", /webhook-dispatcher|fanOutOutboxEvents|claimDueDeliveries/],
  ["provider call: SDK, transport, answer parsing", /node_modules\/(openai|@anthropic-ai|ollama)|providers\/src|undici|_http_client|_http_agent/],
  ["authentication, limits, chat state reads", /\bauthenticate\b|admitRequest|rate-limiter|readChatState|findApiKeyByHash|read-cache/],
  ["rest of the pipeline (prompt, events, views, ids)", /core\/src|sqlite\/src/],
  ["HTTP: node:http, Parley's handler, access log, socket writes", /server\/src|_http_server|_http_outgoing|_http_common|_http_incoming|node:net|stream_base_commons|internal\/streams/],
  ["garbage collector", /^\(garbage collector\)/],
];

const profile = JSON.parse(readFileSync(file, "utf8"));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
// A profile of the bundled server (bench:http's default) names the bundle, not the sources: the
// bundle's source map, which bench:http leaves beside the profile, gives each frame's source file.
const sourceMaps = new Map();
const sourceOf = ({ url, lineNumber, columnNumber }) => {
  if (!url.endsWith(".js")) return url;
  const mapFile = join(dirname(file), `${basename(url)}.map`);
  if (!sourceMaps.has(mapFile)) sourceMaps.set(mapFile, existsSync(mapFile) ? new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))) : null);
  const entry = sourceMaps.get(mapFile)?.findEntry(lineNumber, columnNumber);
  return entry?.originalSource ?? url;
};
const frame = (node) => `${node.callFrame.functionName || "(anon)"} ${sourceOf(node.callFrame)}`;
const stepOf = new Map();
const classify = (id) => {
  let step = stepOf.get(id);
  if (step !== undefined) return step;
  const frames = [];
  for (let at = id; at !== undefined; at = parents.get(at)) frames.push(frame(nodes.get(at)));
  const index = STEPS.findIndex(([, pattern]) => frames.some((text) => pattern.test(text)));
  step = index === -1 ? STEPS.length : index;
  stepOf.set(id, step);
  return step;
};

const totals = new Array(STEPS.length + 1).fill(0);
let idle = 0;
let time = profile.startTime;
for (let index = 0; index < profile.samples.length; index += 1) {
  time += profile.timeDeltas[index];
  const seconds = (time - profile.startTime) / 1e6;
  if ((values.from !== undefined && seconds < Number(values.from)) || (values.to !== undefined && seconds > Number(values.to))) continue;
  const id = profile.samples[index];
  const name = nodes.get(id).callFrame.functionName;
  if (name === "(idle)") idle += profile.timeDeltas[index];
  else totals[classify(id)] += profile.timeDeltas[index];
}
const busy = totals.reduce((sum, value) => sum + value, 0);
const rows = [...STEPS.map(([name]) => name), "other (V8, Node internals, startup)"].map((name, index) => [name, totals[index]]);
process.stdout.write(`main thread busy ${(busy / 1e6).toFixed(2)} s, idle ${(idle / 1e6).toFixed(2)} s${chats ? `, ${chats} chats` : ""}\n\n`);
process.stdout.write(`| step | ms | share |${chats ? " ms a chat |" : ""}\n|---|---:|---:|${chats ? "---:|" : ""}\n`);
for (const [name, micros] of rows) {
  if (micros === 0) continue;
  const perChat = chats ? ` ${(micros / 1000 / chats).toFixed(3)} |` : "";
  process.stdout.write(`| ${name} | ${(micros / 1000).toFixed(0)} | ${((100 * micros) / busy).toFixed(1)}% |${perChat}\n`);
}
