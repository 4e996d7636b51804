// Measures how long a process's event loop is held during a test (issue 24's "under 100 ms").
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";

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
  worstTick: { lateMs: number; cpuMs: number; runQueueMs: number; blockedMs: number } | null;
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
  let last = performance.now();
  let lastCpu = cpuMs();
  let lastSched = sched();
  let maxBusyMs = 0;
  let worstTick: EventLoopReport["worstTick"] = null;
  const ticker = setInterval(() => {
    const now = performance.now();
    const cpu = cpuMs();
    const late = Math.max(0, now - last - TICK_MS);
    // The clock tick is 10 ms: a busy stretch is known to within one tick either side.
    const busy = cpu === null || lastCpu === null ? late : Math.min(late, Math.max(0, cpu - lastCpu - TICK_MS));
    maxBusyMs = Math.max(maxBusyMs, busy);
    const stat = sched();
    if (stat && lastSched && late > (worstTick?.lateMs ?? -1)) {
      const tick = now - last;
      const [cpuMs, runQueueMs] = [stat[0] - lastSched[0], stat[1] - lastSched[1]];
      worstTick = { lateMs: late, cpuMs, runQueueMs, blockedMs: Math.max(0, tick - cpuMs - runQueueMs) };
    }
    last = now;
    lastCpu = cpu;
    lastSched = stat;
  }, TICK_MS);
  return {
    stop() {
      clearInterval(ticker);
      histogram.disable();
      return { maxDelayMs: histogram.max / 1e6, p99DelayMs: histogram.percentile(99) / 1e6, maxBusyMs, worstTick };
    },
  };
}
