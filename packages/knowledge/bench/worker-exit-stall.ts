// `npm run bench:worker-exit`: does the end of a parser with a large heap stall the event loop
// of the process that started it? A worker thread (or a child process) fills its heap with
// ≈ N MiB of live objects, then ends: `terminate()` / SIGKILL, its own exit, or its heap limit
// (`resourceLimits` / `--max-old-space-size`). Around each end the main thread watches its own
// event loop (a 1 ms timer's longest gap, and `monitorEventLoopDelay` at 1 ms) and reads its
// own /proc/thread-self/schedstat: CPU time, time runnable but waiting for a CPU, so a stall
// can be told apart as running, waiting for a CPU, or blocked (neither).
// Options: --runs N (5), --mb 40,100,170 (heap sizes filled), --only worker|child,
// --how none,terminate,busy,exit,limit,parsing (which ends; "parsing" watches 2 s of allocation, not an end),
// --idle-main (the main thread allocates nothing while it watches).
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { Worker } from "node:worker_threads";

const { values: flags } = parseArgs({
  options: { runs: { type: "string", default: "5" }, mb: { type: "string", default: "40,100,170" }, only: { type: "string" }, how: { type: "string", default: "none,terminate,busy,exit,limit,parsing" }, "idle-main": { type: "boolean", default: false } },
});
const say = (line = "") => process.stdout.write(`${line}\n`);

// The parser stand-in: fills its heap with ~`mb` MiB of small live objects in 1 MiB chunks
// (as a DOM or a pdf.js document does), says "full", then waits; or keeps filling until its heap
// limit if `mb` is 0. Runs in a worker (parentPort) or a child process (process.send).
const FILLER = `
const send = (m) => (typeof process.send === "function" ? process.send(m) : require("node:worker_threads").parentPort.postMessage(m));
const on = (f) => (typeof process.send === "function" ? process.on("message", f) : require("node:worker_threads").parentPort.on("message", f));
// Lowered as the reader lowers its workers (Linux): a worker its own thread; a child process all
// of its threads, V8's GC helpers included, which a worker shares with the main thread.
try {
  const { readdirSync, readlinkSync } = require("node:fs");
  const { setPriority } = require("node:os");
  const threads = typeof process.send === "function" ? readdirSync("/proc/self/task") : [readlinkSync("/proc/thread-self").split("/").pop()];
  for (const thread of threads) setPriority(Number(thread), 19);
} catch {}
const kept = [];
on((order) => {
  if (order.fill !== undefined) {
    const target = order.fill || Infinity;
    while (process.memoryUsage().heapUsed / 2 ** 20 < target) {
      const chunk = [];
      for (let i = 0; i < 8000; i += 1) chunk.push({ a: i, b: "x" + i, c: [i] });
      kept.push(chunk);
    }
    send({ full: process.memoryUsage().heapUsed / 2 ** 20 });
  } else if (order.churn) {
    // Parsing: keeps allocating short-lived objects (and never returns) until it is ended.
    let garbage = [];
    for (;;) garbage = Array.from({ length: 5000 }, (_, i) => ({ i, s: "n" + i, kids: [garbage.length] }));
  } else if (order.exit) process.exit(0);
});
send({ ready: true });
setInterval(() => {}, 1000);
`;

/** The main thread's CPU time and run-queue wait so far, in ms (Linux). */
function schedstat(): { cpu: number; wait: number } {
  try {
    const [cpu, wait] = readFileSync("/proc/thread-self/schedstat", "utf8").trim().split(" ").map(Number);
    return { cpu: cpu! / 1e6, wait: wait! / 1e6 };
  } catch {
    return { cpu: Number.NaN, wait: Number.NaN };
  }
}

/**
 * Watches the event loop from now until the returned stop: the longest 1 ms-timer gap, split
 * into the main thread's CPU time and run-queue wait inside that gap (the rest of it the thread
 * was blocked: asleep on a lock, a page fault, I/O), the histogram's max delay, and the
 * thread's totals over the window. Meanwhile the main thread allocates a little, as a server does.
 */
function watch() {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  let last = performance.now();
  let lastStat = schedstat();
  let worst = { gap: 0, cpu: 0, wait: 0 };
  let garbage: unknown[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    const stat = schedstat();
    if (now - last > worst.gap) worst = { gap: now - last, cpu: stat.cpu - lastStat.cpu, wait: stat.wait - lastStat.wait };
    last = now;
    lastStat = stat;
    if (!flags["idle-main"]) garbage = Array.from({ length: 200 }, (_, i) => ({ i, s: "request " + i }));
  }, 1);
  const before = schedstat();
  const started = performance.now();
  return () => {
    clearInterval(timer);
    histogram.disable();
    void garbage;
    const after = schedstat();
    return {
      gap: worst.gap,
      gapCpu: worst.cpu,
      gapWait: worst.wait,
      gapBlocked: worst.gap - worst.cpu - worst.wait,
      delay: histogram.max / 1e6,
      cpu: after.cpu - before.cpu,
      wait: after.wait - before.wait,
      window: performance.now() - started,
    };
  };
}

type How = "terminate" | "exit" | "limit" | "none" | "busy" | "parsing";
type Outcome = { heap: number; endMs: number } & ReturnType<ReturnType<typeof watch>>;

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One worker thread: fill, then end it `how`; the watch runs from the order to 100 ms after "exit". */
async function workerRun(mb: number, how: How): Promise<Outcome> {
  const limit = how === "limit" ? mb : 256;
  const worker = new Worker(FILLER, { eval: true, resourceLimits: { maxOldGenerationSizeMb: limit, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 }, stdout: true, stderr: true });
  worker.on("error", () => undefined);
  const messages = (wanted: string) => new Promise<Record<string, number>>((resolve) => worker.on("message", (m) => wanted in m && resolve(m)));
  await messages("ready");
  let heap = Number.NaN;
  let stop: () => ReturnType<ReturnType<typeof watch>>;
  let started: number;
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  if (how === "limit") {
    // The fill itself ends at the limit: watch from the start of the last 20% of the climb.
    stop = watch();
    started = performance.now();
    worker.postMessage({ fill: 0 });
  } else {
    const full = messages("full");
    worker.postMessage({ fill: mb });
    heap = (await full).full!;
    if (how === "busy" || how === "parsing") worker.postMessage({ churn: true });
    await settle(how === "busy" ? 300 : 100);
    stop = watch();
    started = performance.now();
    if (how === "terminate" || how === "busy") void worker.terminate();
    else if (how === "exit") worker.postMessage({ exit: true });
    else void settle(200).then(() => worker.terminate());
  }
  if (how === "none" || how === "parsing") {
    await settle(how === "parsing" ? 2000 : 200);
    const figures = stop();
    void worker.terminate();
    await exited;
    return { heap, endMs: 0, ...figures };
  }
  await exited;
  const endMs = performance.now() - started;
  await settle(100);
  return { heap, endMs, ...stop() };
}

/** The same with a child process: fill, then SIGKILL, exit, or its --max-old-space-size. */
async function childRun(mb: number, how: How): Promise<Outcome> {
  const limit = how === "limit" ? mb : 256;
  const child: ChildProcess = spawn(process.execPath, [`--max-old-space-size=${limit}`, "-e", FILLER], { stdio: ["ignore", "ignore", "ignore", "ipc"] });
  const messages = (wanted: string) => new Promise<Record<string, number>>((resolve) => child.on("message", (m: Record<string, number>) => wanted in m && resolve(m)));
  await messages("ready");
  let heap = Number.NaN;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let stop: () => ReturnType<ReturnType<typeof watch>>;
  let started: number;
  if (how === "limit") {
    stop = watch();
    started = performance.now();
    child.send({ fill: 0 });
  } else {
    const full = messages("full");
    child.send({ fill: mb });
    heap = (await full).full!;
    if (how === "busy" || how === "parsing") child.send({ churn: true });
    await settle(how === "busy" ? 300 : 100);
    stop = watch();
    started = performance.now();
    if (how === "terminate" || how === "busy") child.kill("SIGKILL");
    else if (how === "exit") child.send({ exit: true });
  }
  if (how === "none" || how === "parsing") {
    await settle(how === "parsing" ? 2000 : 200);
    const figures = stop();
    child.kill("SIGKILL");
    await exited;
    return { heap, endMs: 0, ...figures };
  }
  await exited;
  const endMs = performance.now() - started;
  await settle(100);
  return { heap, endMs, ...stop() };
}

const f = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "–");
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const runs = Number(flags.runs);
  const sizes = flags.mb!.split(",").map(Number);
  say(`${cpus()[0]?.model ?? "?"} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}-${process.arch}`);
  say(`load average at start: ${loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  say("each cell: median (max) over runs; gap = longest 1 ms-timer gap, delay = monitorEventLoopDelay max,");
  say("cpu / wait = main thread's CPU time / time runnable but not running, in the watched window; end = order → exit event");
  say();
  say("| parser | heap | how it ends | end ms | worst gap ms | its cpu / runq wait / blocked ms | delay max ms | window: main cpu / runq wait / length ms |");
  say("|---|---:|---|---:|---:|---:|---:|---:|");
  const kinds = (["worker", "child"] as const).filter((kind) => !flags.only || flags.only === kind);
  for (const kind of kinds) {
    for (const mb of sizes) {
      for (const how of flags.how!.split(",") as How[]) {
        const outcomes: Outcome[] = [];
        for (let run = 0; run < runs; run += 1) outcomes.push(await (kind === "worker" ? workerRun(mb, how) : childRun(mb, how)));
        const cell = (key: keyof Outcome) => `${f(median(outcomes.map((o) => o[key])))} (${f(Math.max(...outcomes.map((o) => o[key])))})`;
        const heap = how === "limit" ? `limit ${mb} MiB` : `${f(median(outcomes.map((o) => o.heap)))} MiB`;
        const label = kind === "worker" ? { none: "kept (baseline)", parsing: "(2 s while it allocates)", terminate: "terminate() idle", busy: "terminate() while allocating", exit: "process.exit in it", limit: "resourceLimits hit" }[how] : { none: "kept (baseline)", parsing: "(2 s while it allocates)", terminate: "SIGKILL idle", busy: "SIGKILL while allocating", exit: "process.exit in it", limit: "--max-old-space-size hit" }[how];
        // The worst gap's split is the run with the median worst gap's own split.
        const byGap = [...outcomes].sort((a, b) => a.gap - b.gap);
        const mid = byGap[Math.floor(byGap.length / 2)]!;
        const top = byGap.at(-1)!;
        const split = (o: Outcome) => `${f(o.gapCpu)} / ${f(o.gapWait)} / ${f(o.gapBlocked)}`;
        say(`| ${kind} | ${heap} | ${label} | ${cell("endMs")} | ${f(mid.gap)} (${f(top.gap)}) | ${split(mid)} (${split(top)}) | ${cell("delay")} | ${cell("cpu")} / ${cell("wait")} / ${cell("window")} |`);
      }
    }
  }
  say();
  say(`load average at end: ${loadavg().map((n) => n.toFixed(2)).join(" ")}`);
}

await main();
