// `npm run bench:redis-limiter`: the CPU this process spends a rate-limit check on Redis (a chat's
// two windows in one `hitInOrder`), 8 checks in flight on one connection, for --seconds S (6)
// after 2 s of warm-up. Redis: PARLEY_TEST_REDIS_URL (default the machine's 127.0.0.1:6379).
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { connectRedis } from "../src/connect-redis.js";
import { createRedisRateLimiter } from "../src/redis-rate-limiter.js";

const { values: flags } = parseArgs({ options: { seconds: { type: "string", default: "6" } } });
const url = process.env.PARLEY_TEST_REDIS_URL?.trim() || "redis://127.0.0.1:6379";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const connection = await connectRedis(url);
const limiter = createRedisRateLimiter({ client: connection.scripting, prefix: `parley-bench:${process.pid}:` });
let checks = 0;
let stopped = false;
const worker = async (id: number) => {
  for (let n = 0; !stopped; n += 1) {
    await limiter.hitInOrder([
      { key: `key-${id}-${n % 300}`, limit: 1e9, windowMs: 60_000 },
      { key: `conversation-${id}`, limit: 1e9, windowMs: 60_000 },
    ]);
    checks += 1;
  }
};
const workers = Array.from({ length: 8 }, (_, id) => worker(id));
await sleep(2_000);
const startCpu = process.cpuUsage();
const startChecks = checks;
await sleep(Number(flags.seconds) * 1_000);
const cpu = process.cpuUsage(startCpu);
const measured = checks - startChecks;
stopped = true;
await Promise.all(workers);
await connection.close();
process.stdout.write(
  `machine: ${cpus()[0]?.model.trim()}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}\n` +
    `${measured} checks in ${flags.seconds} s (${Math.round(measured / Number(flags.seconds))}/s): ${((cpu.user + cpu.system) / measured).toFixed(1)} µs of this process's CPU a check (user ${(cpu.user / measured).toFixed(1)}, system ${(cpu.system / measured).toFixed(1)})\n`,
);
