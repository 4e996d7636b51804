// Measures how long a process's event loop is held during a test (issue 24's "under 100 ms").
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";

/** What a watch saw: the raw delays, and the longest stretch the main thread itself was busy. */
export interface EventLoopReport {
  /** `monitorEventLoopDelay`'s worst delay, in ms: work on the loop plus any wait for a CPU. */
  maxDelayMs: number;
  /** Its 99th percentile, in ms. */
  p99DelayMs: number;
  /**
   * The longest delay the main thread spent running (its own CPU time within the late tick,
   * from /proc on Linux), in ms: work on the event loop, not time a loaded machine kept it off
   * the CPU. Equals the raw delay where /proc is not available.
   */
  maxBusyMs: number;
  /**
   * The tick that came latest in the watch (from /proc/thread-self/schedstat on Linux, null elsewhere):
   * how late it was, and within it the main thread's CPU time, its wait on a run queue (runnable,
   * kept off the CPU by other threads) and the rest, when it was blocked (asleep on a lock, a
   * page fault, I/O), in ms.
   */
  worstTick: SlowTick | null;
  /** The ticks more than 50 ms late (at most the 10 latest of them), each split as `worstTick` is, in the order they came. */
  slowTicks: SlowTick[];
  /** The main isolate's garbage collections in the watch: how many, their total and longest pause, in ms. */
  gc: { count: number; totalMs: number; maxMs: number };
}

/** One late tick: when it ended (ms since the watch began), how late it was, and its split. */
export interface SlowTick {
  atMs: number;
  lateMs: number;
  cpuMs: number;
  runQueueMs: number;
  blockedMs: number;
  /** The longest GC pause of the main isolate that ended within the tick, in ms. */
  gcMs: number;
}

const TICK_MS = 10;
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Starts watching the event loop; `stop()` returns the report. On a machine shared by many busy
 * processes an idle Node process already sees 70–120 ms gaps (the kernel runs others), so a
 * bound on the loop's own work is read from the main thread's CPU time, beside the raw delay.
 */
export function watchEventLoop(): { stop(): EventLoopReport } {
  const histogram = monitorEventLoopDelay({ resolution: TICK_MS });
  histogram.enable();
  const statPath = `/proc/self/task/${process.pid}/stat`;
  const cpuMs = (): number | null => {
    try {
      // utime and stime are fields 14 and 15; the command name (field 2) may hold spaces, so count from its ")".
      const fields = readFileSync(statPath, "utf8").split(") ")[1]!.split(" ");
      return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    } catch {
      return null;
    }
  };
  // CPU time and run-queue wait in ns, finer than the clock ticks of /proc/<pid>/stat.
  const schedPath = `/proc/self/task/${process.pid}/schedstat`;
  const sched = (): [number, number] | null => {
    try {
      const [cpu, wait] = readFileSync(schedPath, "utf8").split(" ").map(Number);
      return [cpu! / 1e6, wait! / 1e6];
    } catch {
      return null;
    }
  };
  const gc = { count: 0, totalMs: 0, maxMs: 0 };
  // Pauses of 1 ms or more, kept to be matched with the slow ticks they fell in (the observer is told later).
  const pauses: { startTime: number; duration: number }[] = [];
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count += 1;
      gc.totalMs += entry.duration;
      gc.maxMs = Math.max(gc.maxMs, entry.duration);
      if (entry.duration >= 1) pauses.push({ startTime: entry.startTime, duration: entry.duration });
    }
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  const began = performance.now();
  let last = began;
  let lastCpu = cpuMs();
  let lastSched = sched();
  let maxBusyMs = 0;
  let worstTick: (SlowTick & { from: number }) | null = null;
  let slowTicks: (SlowTick & { from: number })[] = [];
  const ticker = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    const late = Math.max(0, now - last - TICK_MS);
    // The clock tick is 10 ms: a busy stretch is known to within one tick either side.
    const busy = cpu === null || lastCpu === null ? late : Math.min(late, Math.max(0, cpu - lastCpu - TICK_MS));
    maxBusyMs = Math.max(maxBusyMs, busy);
    const stat = sched();
    if (stat && lastSched && (late > (worstTick?.lateMs ?? -1) || late > 50)) {
      const [cpuMs, runQueueMs] = [stat[0] - lastSched[0], stat[1] - lastSched[1]];
      const slow = { atMs: now - began, lateMs: late, cpuMs, runQueueMs, blockedMs: Math.max(0, now - last - cpuMs - runQueueMs), gcMs: 0, from: last };
      if (late > (worstTick?.lateMs ?? -1)) worstTick = slow;
      if (late > 50) slowTicks = [...slowTicks.slice(-9), slow];
    }
    last = now;
    lastCpu = cpu;
    lastSched = stat;
  }, TICK_MS);
  return {
    stop() {
      clearInterval(ticker);
      histogram.disable();
      gcObserver.disconnect();
      const withPauses = ({ from, ...tick }: SlowTick & { from: number }): SlowTick => {
        const within = pauses.filter((pause) => pause.startTime < from + TICK_MS + tick.lateMs && pause.startTime + pause.duration > from);
        return { ...tick, gcMs: Math.max(0, ...within.map((pause) => pause.duration)) };
      };
      return { maxDelayMs: histogram.max / 1e6, p99DelayMs: histogram.percentile(99) / 1e6, maxBusyMs, worstTick: worstTick && withPauses(worstTick), slowTicks: slowTicks.map(withPauses), gc };
    },
  };
}
