// How the HTTP benchmark prints its figures: one block per run, and a Markdown table.
import type { Result } from "autocannon";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";

/** One measured run and the CPU seconds each process spent in it. */
export interface Measured {
  name: string;
  result: Result;
  serverCpu: number | undefined;
  providerCpu: number | undefined;
  clientCpu: number;
}

/** A target of the issue: requests per second, and a p99 latency bound for some routes. */
export interface Target {
  rps: number;
  p99?: number;
}

/** The run in three lines: throughput and latency, answers, CPU. */
export function report(run: Measured): string {
  const { result } = run;
  const perSecond = (cpu: number | undefined) => (cpu === undefined ? "n/a" : `${Math.round((cpu / result.duration) * 100)}%`);
  const perRequest = run.serverCpu === undefined ? "n/a" : `${((run.serverCpu / result.requests.total) * 1e6).toFixed(0)} µs`;
  const statuses = Object.entries(result.statusCodeStats).map(([status, { count }]) => `${status}×${count}`).join(" ");
  return [
    `${run.name}: ${Math.round(result.requests.average).toLocaleString("en")} req/s (${result.requests.total.toLocaleString("en")} in ${result.duration.toFixed(1)} s), ` +
      `latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    `  non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}; statuses ${statuses}`,
    `  CPU (of one core): server ${perSecond(run.serverCpu)}, load generator ${perSecond(run.clientCpu)}, fake provider ${perSecond(run.providerCpu)}; server CPU per request ${perRequest}`,
  ].join("\n");
}

/** Whether the run met its target, in words. */
export function verdict(run: Measured, target: Target): string {
  const rpsOk = run.result.requests.average >= target.rps;
  const p99Ok = target.p99 === undefined || run.result.latency.p99 <= target.p99;
  const wanted = `≥ ${target.rps.toLocaleString("en")} req/s${target.p99 === undefined ? "" : ` with p99 ≤ ${target.p99} ms`}`;
  return `${run.name}: target ${wanted}: ${rpsOk && p99Ok ? "met" : "MISSED"}`;
}

/** The figures as a Markdown table, for docs/benchmarks.md. */
export function markdownTable(runs: { run: Measured; target?: Target }[], peakMiB: number | undefined): string {
  const rows = runs.map(({ run, target }) => {
    const { result } = run;
    const perRequest = run.serverCpu === undefined ? "n/a" : `${Math.round((run.serverCpu / result.requests.total) * 1e6)} µs`;
    const verdictText = target === undefined ? "(ceiling)" : verdict(run, target).endsWith("met") ? "met" : "missed";
    return `| ${run.name} | ${Math.round(result.requests.average).toLocaleString("en")} | ${result.latency.p50} ms | ${result.latency.p99} ms | ${result.non2xx} | ${perRequest} | ${verdictText} |`;
  });
  return [
    "| Route | Requests/s | p50 | p99 | Non-2xx | Server CPU per request | Target |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `Server peak RSS: ${peakMiB === undefined ? "n/a" : `${Math.round(peakMiB)} MiB`}.`,
  ].join("\n");
}

/** The machine and its load, printed first by every server benchmark: figures mean little without them. */
export function machineLine(): string {
  const load = loadavg().map((value) => value.toFixed(2)).join(" ");
  return `Machine: ${processorName()}, ${cpus().length} cores, Node ${process.version}, load average ${load}`;
}

/**
 * The processor as Linux names it, with its family and model numbers where /proc/cpuinfo gives
 * them ("AMD EPYC (family 26, model 2)"): under a hypervisor the model name alone can be the
 * same for processors generations apart ("AMD EPYC" for families 25 and 26), which differ in
 * what each request costs.
 */
export function processorName(): string {
  const model = cpus()[0]?.model.trim() ?? "unknown CPU";
  const cpuinfo = readCpuinfo();
  const family = /^cpu family\s*:\s*(\d+)[ \t]*$/m.exec(cpuinfo)?.[1];
  const number = /^model\s*:\s*(\d+)[ \t]*$/m.exec(cpuinfo)?.[1];
  return family === undefined || number === undefined ? model : `${model} (family ${family}, model ${number})`;
}

function readCpuinfo(): string {
  try {
    return readFileSync("/proc/cpuinfo", "utf8");
  } catch {
    return "";
  }
}
