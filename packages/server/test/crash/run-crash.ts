// `npm run crash -- --kills N [--seed S] [--ingest-kills M]`: more kill rounds than the test runs.
import { parseArgs } from "node:util";
import { runChatKills, runIngestKills, startCrashWorld } from "./crash-rounds.js";

const { values } = parseArgs({ options: { kills: { type: "string", default: "50" }, seed: { type: "string" }, "ingest-kills": { type: "string", default: "10" } } });
const kills = Number(values.kills);
const ingestKills = Number(values["ingest-kills"]);
const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
process.stdout.write(`crash: ${kills} kills under chat load, ${ingestKills} during ingest, seed ${seed}\n`);
const world = await startCrashWorld();
const started = performance.now();
try {
  const chat = await runChatKills(world, { kills, seed, onKill: (round) => round % 10 === 0 && process.stdout.write(`  ${round} kills\n`) });
  const ingest = await runIngestKills(world, { kills: ingestKills, seed: seed + 2 });
  const problems = [...chat.problems, ...ingest.problems];
  const { problems: _chat, ...chatFigures } = chat;
  process.stdout.write(`${JSON.stringify({ seed, seconds: Math.round((performance.now() - started) / 1000), chat: chatFigures, ingest: { kills: ingest.kills, partial: ingest.partial } })}\n`);
  process.stdout.write(problems.length === 0 ? "nothing lost\n" : `PROBLEMS (seed ${seed}):\n${problems.join("\n")}\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  await world.close();
}
