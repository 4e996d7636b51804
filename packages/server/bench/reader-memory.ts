// `npm run bench:reader-memory`: what one document reader process costs (issue 24), on the
// reader entry bundled from the sources as it is deployed. First one reader, idle, after each of
// a text file, an HTML page, a PDF and a DOCX in turn (RSS and PSS from /proc/PID/smaps_rollup);
// then, for each set of V8 flags given (`--flags "--max-semi-space-size=12"`, repeatable; default
// the reader's own at its default heap), a fresh reader reads each hostile page (`--docs poison,deep`) to its natural
// end — no deadline, nice 0 — with its peak RSS (VmHWM), peak PSS (sampled every 10 ms) and CPU.
import { spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { deeplyNestedHtml, fixture, poisonHtml } from "@parley/knowledge/testing";
import { DEFAULT_READ_LIMITS } from "../../knowledge/src/read-limits.js";
import { bundleFromSources } from "./build-server.js";

const HEAP_MB = 192;
/** The young generation the reader gives itself at that heap (start-reader-process.ts). */
const OWN_FLAGS = ["--max-semi-space-size=4"];
const argument = (name: string) => process.argv.flatMap((value, index) => (process.argv[index - 1] === name ? [value] : []));
const flagSets = argument("--flags").map((flags) => flags.split(" ").filter(Boolean));
const documents = (argument("--docs")[0] ?? "poison,deep").split(",");
const hostile: Record<string, () => [string, Buffer]> = { poison: () => ["poison.html", poisonHtml()], deep: () => ["deep.html", deeplyNestedHtml()] };
const idleAfter: [string, string, Buffer][] = [
  ["a text file", "hours.txt", Buffer.from("Open nine to five.")],
  ["+ an HTML page", "hours.html", Buffer.from("<html><title>Hours</title><body><article><h1>Hours</h1><p>Open nine to five, every day but Sunday, at the shop on the corner.</p></article></body></html>")],
  ["+ a PDF", "manual.pdf", fixture("manual.pdf")],
  ["+ a DOCX", "handbook.docx", fixture("handbook.docx")],
];

const mib = (kb: number) => (kb / 1024).toFixed(0);
const rollup = (pid: number, field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/smaps_rollup`, "utf8"))?.[1] ?? 0);
const peakRssKb = (pid: number) => Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** A reader process on the bundled entry, with the reader's limits and `flags`; answers as the reader's IPC does. */
function startReader(bundle: string, flags: string[]) {
  const child = spawn(process.execPath, [`--max-old-space-size=${HEAP_MB}`, "--stack-size=3984", ...flags, "-e", `import(${JSON.stringify(join(bundle, "read-document-worker.js"))})`], {
    stdio: ["ignore", "ignore", "inherit", "ipc"],
    serialization: "advanced",
  });
  const answers: ((answer: Record<string, unknown>) => void)[] = [];
  child.on("message", (answer: Record<string, unknown>) => answers.shift()?.(answer));
  const next = () => new Promise<Record<string, unknown>>((resolve) => answers.push(resolve));
  const read = (name: string, bytes: Buffer) => {
    const answered = next();
    child.send({ input: { bytes, name, source: name }, limits: DEFAULT_READ_LIMITS });
    return answered;
  };
  return { child, ready: next(), read };
}

const bundle = await bundleFromSources("reader-memory", {});
try {
  process.stdout.write(`| one reader, idle after | RSS | PSS |\n|---|---:|---:|\n`);
  const idle = startReader(bundle, OWN_FLAGS);
  await idle.ready;
  for (const [label, name, bytes] of idleAfter) {
    await idle.read(name, bytes);
    process.stdout.write(`| ${label} | ${mib(rollup(idle.child.pid!, "Rss"))} MiB | ${mib(rollup(idle.child.pid!, "Pss"))} MiB |\n`);
  }
  idle.child.kill("SIGKILL");

  process.stdout.write(`\n| reader's V8 flags (heap ${HEAP_MB} MiB) | document | outcome | peak RSS / peak PSS | CPU |\n|---|---|---|---:|---:|\n`);
  for (const flags of flagSets.length > 0 ? flagSets : [OWN_FLAGS]) {
    for (const document of documents) {
      const reader = startReader(bundle, flags);
      await reader.ready;
      const pid = reader.child.pid!;
      let peakPssKb = 0;
      const sampler = setInterval(() => (peakPssKb = Math.max(peakPssKb, rollup(pid, "Pss"))), 10);
      const [name, bytes] = hostile[document]!();
      const answer = await reader.read(name, bytes);
      clearInterval(sampler);
      const outcome = "error" in answer ? String(answer.error) : "read";
      process.stdout.write(`| ${flags.join(" ") || "(V8's defaults)"} | ${document} | ${outcome} | ${mib(peakRssKb(pid))} / ${mib(Math.max(peakPssKb, rollup(pid, "Pss")))} MiB | ${(cpuMs(pid) / 1000).toFixed(1)} s |\n`);
      reader.child.kill("SIGKILL");
    }
  }
} finally {
  rmSync(bundle, { recursive: true, force: true });
}
process.stdout.write(`\nMachine: ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, Node ${process.version}; load average at the end ${loadavg().map((load) => load.toFixed(2)).join(" ")}\n`);
