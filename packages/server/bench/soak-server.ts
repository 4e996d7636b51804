// `parley serve` from its sources, plus what only the process itself can measure: every
// PARLEY_SOAK_SAMPLE_MS it writes one line on stderr, `soak-sample {json}`, with its heap and
// event-loop delay (the soak reads RSS from /proc, the same figure for every process).
import { monitorEventLoopDelay } from "node:perf_hooks";
import { main } from "../src/cli.js";

const every = Number(process.env.PARLEY_SOAK_SAMPLE_MS ?? 10_000);
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const sampler = setInterval(() => {
  const memory = process.memoryUsage();
  const ms = (nanoseconds: number) => Math.round(nanoseconds / 1e4) / 100;
  const sample = { heapUsedMiB: memory.heapUsed / 2 ** 20, externalMiB: memory.external / 2 ** 20, loopP50Ms: ms(delay.percentile(50)), loopP99Ms: ms(delay.percentile(99)), loopMaxMs: ms(delay.max) };
  process.stderr.write(`soak-sample ${JSON.stringify(sample)}\n`);
  delay.reset();
}, every);
sampler.unref();
process.exitCode = await main(process.argv.slice(2));
