// The soak's verdict: totals, and whether memory grew after the warm-up.

/** One window of the soak. */
export interface SoakSample {
  seconds: number;
  answersPerSecond: number;
  refused: number;
  errors: number;
  p99Ms: number;
  rssMiB: number;
  heapMiB: number;
  loopP99Ms: number;
  loopMaxMs: number;
}

const median = (values: number[]) => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

/** Least-squares slope of `value` over time, per minute. */
function slopePerMinute(samples: SoakSample[], value: (sample: SoakSample) => number): number {
  const points = samples.filter((sample) => Number.isFinite(value(sample)));
  const meanX = points.reduce((sum, sample) => sum + sample.seconds, 0) / points.length;
  const meanY = points.reduce((sum, sample) => sum + value(sample), 0) / points.length;
  const covariance = points.reduce((sum, sample) => sum + (sample.seconds - meanX) * (value(sample) - meanY), 0);
  const variance = points.reduce((sum, sample) => sum + (sample.seconds - meanX) ** 2, 0);
  return variance === 0 ? 0 : (covariance / variance) * 60;
}

/**
 * Memory "grew" when the median of the last minute exceeds the median of the first minute after
 * the warm-up by more than 10 MiB and 5%: GC and SQLite's page cache move RSS by a few MiB
 * either way, a leak keeps going.
 */
function growth(samples: SoakSample[], name: string, value: (sample: SoakSample) => number): string {
  const first = median(samples.slice(0, 6).map(value));
  const last = median(samples.slice(-6).map(value));
  const grew = last - first > Math.max(10, first * 0.05);
  return `${name}: ${first.toFixed(1)} MiB just after warm-up → ${last.toFixed(1)} MiB in the last minute (slope ${slopePerMinute(samples, value).toFixed(2)} MiB/min): ${grew ? "GREW" : "flat"}`;
}

/** The soak's closing lines. */
export function summariseSoak(samples: SoakSample[], run: { minutes: number; faults: number }): string {
  const warmUpSeconds = Math.min(120, run.minutes * 60 * 0.2);
  const after = samples.filter((sample) => sample.seconds > warmUpSeconds);
  const answers = samples.reduce((sum, sample) => sum + sample.answersPerSecond * (samples.length > 1 ? samples[1]!.seconds - samples[0]!.seconds : 10), 0);
  const errors = samples.reduce((sum, sample) => sum + sample.errors, 0);
  const refused = samples.reduce((sum, sample) => sum + sample.refused, 0);
  const lines = [
    `Answers: ${Math.round(answers)} (${(answers / (run.minutes * 60)).toFixed(1)}/s on average), non-200: ${refused}, connection errors: ${errors}, faults logged by the server: ${run.faults}.`,
    `Latency p99 per window: median ${median(samples.map((sample) => sample.p99Ms)).toFixed(0)} ms, worst ${Math.max(...samples.map((sample) => sample.p99Ms)).toFixed(0)} ms. Event-loop delay p99 per window: median ${median(samples.map((sample) => sample.loopP99Ms)).toFixed(1)} ms, worst max ${Math.max(...samples.map((sample) => sample.loopMaxMs)).toFixed(1)} ms.`,
  ];
  if (after.length < 12) lines.push(`Too short to judge memory: ${after.length} windows after a warm-up of ${warmUpSeconds} s (12 needed).`);
  else lines.push(`After a warm-up of ${warmUpSeconds} s:`, `  ${growth(after, "RSS", (sample) => sample.rssMiB)}`, `  ${growth(after, "heap used", (sample) => sample.heapMiB)}`);
  return lines.join("\n");
}
