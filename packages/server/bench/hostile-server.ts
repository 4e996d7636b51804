// The server side of `npm run bench:hostile` (hostile-bench.ts): a Parley server with two
// tenants and its ingestion runner, which watches its own event loop and samples, every 20 ms,
// its RSS and its document readers' (the processes below it). Its own entry, so the bench can
// run it bundled from the sources as it is deployed, or from the sources through tsx (--tsx).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { watchEventLoop, type EventLoopReport } from "@parley/knowledge/testing";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startServer } from "../src/runtime/serve.js";

export type Tenant = { adminKey: string; chatKey: string; bot: string };
export type Stats = EventLoopReport & { peakRssMiB: number; peakTotalRssMiB: number; peak: MemoryPeak; threads: ThreadCpu };
/** The moment the server and its readers together were largest: their PSS sum then, and each reader's RSS and whether it was working. */
export type MemoryPeak = { pssMiB: number; readers: { rssMiB: number; busy: boolean; command: string }[] };
/** CPU time (ms) of the server: its main thread, its other threads (V8's GC helpers, libuv's pool), and its document readers (child processes, ended ones included). */
export type ThreadCpu = { main: number; others: number; readers: number };


const PAGE_BYTES = 4096;
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * This process's descendants (the document readers, and any process of theirs): pid → [RSS in
 * bytes, CPU so far in ms]. Every thread's children are walked, and theirs in turn: from the
 * sources a reader's tsx starts an esbuild process of its own. Linux; empty elsewhere.
 */
function children(parent = String(process.pid), found = new Map<string, [number, number]>()): Map<string, [number, number]> {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${parent}/task`);
  } catch {
    return found; // Ended meanwhile, or not Linux.
  }
  for (const task of tasks) {
    let pids: string[];
    try {
      pids = readFileSync(`/proc/${parent}/task/${task}/children`, "utf8").trim().split(" ").filter(Boolean);
    } catch {
      continue;
    }
    for (const pid of pids) {
      try {
        const rss = Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * PAGE_BYTES;
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
        found.set(pid, [rss, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND]);
        children(pid, found);
      } catch {
        // Ended meanwhile.
      }
    }
  }
  return found;
}

/** A process's command name (`node`, or `esbuild` beside a reader run from the sources). */
function commandOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "?";
  }
}

/**
 * The PSS of processes, summed, in bytes (/proc/PID/smaps_rollup: shared pages divided among the
 * processes that map them). Read on libuv's pool, never on the main thread: reading it takes the
 * target's memory-map lock, which a nice-19 reader starved of CPU may hold in the middle of a
 * heap growth, and the main thread would wait for it (suspected of the one 563 ms blocked tick of a
 * long-queue run that read it here).
 */
async function pssSum(pids: string[]): Promise<number | undefined> {
  const sizes = await Promise.all(
    pids.map((pid) =>
      readFile(`/proc/${pid}/smaps_rollup`, "utf8").then(
        (text) => Number(/^Pss:\s+(\d+) kB/m.exec(text)?.[1] ?? 0) * 1024,
        () => undefined,
      ),
    ),
  );
  // A reader killed at its peak (a limit hit) is gone before it is read: no sum then.
  return sizes.includes(undefined) ? undefined : sizes.reduce<number>((sum, size) => sum + size!, 0);
}

/** CPU time of this process's children that have ended and been waited for (cutime + cstime), in ms. */
function endedChildrenCpu(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Per-thread CPU time so far, in ms, and each thread's nice value (Linux; empty elsewhere). */
function threadTimes(): Map<string, { cpu: number; nice: number }> {
  const times = new Map<string, { cpu: number; nice: number }>();
  try {
    for (const task of readdirSync("/proc/self/task")) {
      try {
        const cpu = Number(readFileSync(`/proc/self/task/${task}/schedstat`, "utf8").split(" ")[0]) / 1e6;
        const nice = Number(readFileSync(`/proc/self/task/${task}/stat`, "utf8").split(") ")[1]!.split(" ")[16]);
        times.set(task, { cpu, nice });
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch {
    // Not Linux.
  }
  return times;
}

/** What the server's threads and readers had spent when a replay began. */
type CpuMark = { threads: Map<string, { cpu: number; nice: number }>; readers: Map<string, [number, number]>; endedReaders: number };

const cpuMark = (): CpuMark => ({ threads: threadTimes(), readers: children(), endedReaders: endedChildrenCpu() });

function cpuSince(before: CpuMark): ThreadCpu {
  const sums = { main: 0, others: 0, readers: endedChildrenCpu() - before.endedReaders };
  for (const [task, now] of threadTimes()) {
    const spent = now.cpu - (before.threads.get(task)?.cpu ?? 0);
    if (task === String(process.pid)) sums.main += spent;
    else sums.others += spent;
  }
  for (const [pid, [, cpu]] of children()) sums.readers += cpu - (before.readers.get(pid)?.[1] ?? 0);
  // A reader that was alive at the mark and has ended since is in the ended sum whole.
  for (const [pid, [, cpu]] of before.readers) if (!existsSync(`/proc/${pid}`)) sums.readers -= cpu;
  return sums;
}

/** In the child: the server, its tenants, and the measurements the parent asks for. */
export async function serveAndWatch(): Promise<void> {
  const runtime = openParley(loadConfig(process.env), { log: () => {} });
  const { admin } = runtime.parley;
  const tenants: Record<string, Tenant> = {};
  for (const name of ["hostile", "other"]) {
    const user = await admin.createUser({ email: `${name}@example.com` });
    tenants[name] = {
      adminKey: (await admin.createApiKey({ userId: user.id, scope: "admin" })).key,
      chatKey: (await admin.createApiKey({ userId: user.id })).key,
      bot: (await admin.createChatbot({ userId: user.id, name, provider: "openai", model: "gpt-test" })).id,
    };
  }
  const running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
  runtime.ingestions.start();
  let watch = watchEventLoop();
  let cpuBefore = cpuMark();
  let peakRss = 0;
  let peakTotalRss = 0;
  let peak: MemoryPeak = { pssMiB: 0, readers: [] };
  // Each reader's CPU a quarter of a second ago: one that spent none since is idle (kept for reuse).
  let cpuEarlier = new Map<string, [number, number]>();
  let cpuEarlierAt = 0;
  // The PSS of the processes alive at the latest peak, read just after it, one read at a time
  // (smaps_rollup walks each process's page tables): a peak passed meanwhile is read next.
  let peakPids: string[] = [];
  let pssRead: Promise<void> | undefined;
  let pssWanted = false;
  const readPss = () => {
    pssWanted = true;
    if (pssRead) return;
    pssWanted = false;
    const target = peak;
    pssRead = pssSum(peakPids).then((sum) => {
      // Unread (a process ended first), the peak keeps the PSS of the latest peak that could be read.
      if (sum !== undefined) target.pssMiB = sum / 2 ** 20;
      pssRead = undefined;
      if (pssWanted) readPss();
    });
  };
  const sampleRss = () => {
    const own = process.memoryUsage.rss();
    const readers = children();
    peakRss = Math.max(peakRss, own);
    const total = own + [...readers.values()].reduce((sum, [rss]) => sum + rss, 0);
    if (total > peakTotalRss) {
      peakTotalRss = total;
      peak = {
        pssMiB: peak.pssMiB,
        readers: [...readers].map(([pid, [rss, cpu]]) => ({ rssMiB: rss / 2 ** 20, busy: cpu > (cpuEarlier.get(pid)?.[1] ?? 0), command: commandOf(pid) })),
      };
      peakPids = [String(process.pid), ...readers.keys()];
      readPss();
    }
    if (performance.now() - cpuEarlierAt >= 250) {
      cpuEarlier = readers;
      cpuEarlierAt = performance.now();
    }
  };
  setInterval(sampleRss, 20).unref();
  process.on("message", (message: string) => {
    if (message === "reset") {
      watch.stop();
      watch = watchEventLoop();
      cpuBefore = cpuMark();
      peakRss = peakTotalRss = 0;
      peak = { pssMiB: 0, readers: [] };
      sampleRss();
      process.send!({ reset: true });
    } else if (message === "report") {
      void reportWhenRead();
    } else if (message === "stop") {
      void running.stop().then(() => process.exit(0));
    }
  });
  const reportWhenRead = async () => {
    while (pssRead) await pssRead;
    process.send!({ stats: { ...watch.stop(), peakRssMiB: peakRss / 2 ** 20, peakTotalRssMiB: peakTotalRss / 2 ** 20, peak, threads: cpuSince(cpuBefore) } });
    watch = watchEventLoop();
  };
  process.send!({ url: running.url, tenants });
}

await serveAndWatch();
