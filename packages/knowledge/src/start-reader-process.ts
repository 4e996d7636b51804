import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { setPriority } from "node:os";
import { pathToFileURL } from "node:url";

/** The limits a reader process is started with. */
export interface ReaderProcessLimits {
  /** V8's old generation, in MiB (`--max-old-space-size`): past it the process dies. */
  heapMb: number;
  /** V8's stack, in KiB (`--stack-size`): deep recursion throws a RangeError within it. */
  stackKb: number;
}

/** A reader process, and when it has loaded its parsers' entry. */
export interface ReaderProcess {
  child: ChildProcess;
  ready: Promise<void>;
}

/**
 * The child lowers itself before it loads anything. On Linux a thread has its own nice value
 * and a thread inherits its creator's, so every thread the process has by then (V8's GC
 * helpers among them) is lowered to 19, through /proc/self/task, and the threads started later
 * (libuv's pool, tsx's module-hooks thread from the sources) start at 19. Elsewhere the whole
 * process is lowered at once. When not allowed, the process keeps the default priority; its
 * limits still bound the document.
 */
const LOWER_PRIORITY = `try {
  const { setPriority } = require("node:os");
  try {
    for (const thread of require("node:fs").readdirSync("/proc/self/task")) setPriority(Number(thread), 19);
  } catch {
    setPriority(19);
  }
} catch {}`;

/**
 * Only what Node and tsx need: a process that parses untrusted bytes is given none of the
 * server's secrets (provider keys, the master key), nor its NODE_OPTIONS.
 */
function readerEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of ["PATH", "HOME", "TMPDIR", "TEMP", "TMP", "SYSTEMROOT"]) {
    const value = process.env[name];
    if (value !== undefined) environment[name] = value;
  }
  return environment;
}

/**
 * A child process on `read-document-worker`: the built `.js` beside this module in `dist`, or,
 * when this module runs from its TypeScript sources (tests, `--conditions=source`), the `.ts`
 * entry loaded through tsx, which the bootstrap registers. Messages use the structured clone
 * (`serialization: "advanced"`), so a document's bytes cross as bytes. The parent lowers the
 * child's main thread as soon as it has a pid; the bootstrap then lowers every thread.
 */
export function startReaderProcess(limits: ReaderProcessLimits): ReaderProcess {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = new URL(`./read-document-worker.${fromSources ? "ts" : "js"}`, import.meta.url);
  let load = `import(${JSON.stringify(entry.href)})`;
  if (fromSources) {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
    load = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return ${load}; })`;
  }
  // A young generation of a few MiB (4 at the default 192 MiB heap): the heap limit is for the old
  // generation, and the young one's semi-spaces stay resident beside it. At 12 MiB a hostile page's
  // reader peaked 27–28 MiB higher than at 4, for 20–40 % less CPU (benchmarks.md, "Hostile input").
  const semiSpaceMb = Math.min(16, Math.max(1, Math.floor(limits.heapMb / 48)));
  const node = [process.execPath, `--max-old-space-size=${limits.heapMb}`, `--max-semi-space-size=${semiSpaceMb}`, `--stack-size=${limits.stackKb}`, "-e", `${LOWER_PRIORITY}\n${load};`];
  // V8 aborts a process that runs out of heap: through a shell that turns core dumps off first,
  // so a tenant's documents cannot fill the disk with a core file each.
  const [command, ...args] = existsSync("/bin/sh") ? ["/bin/sh", "-c", 'ulimit -c 0 2>/dev/null; exec "$0" "$@"', ...node] : node;
  const child = spawn(command!, args, { stdio: ["ignore", "ignore", "ignore", "ipc"], serialization: "advanced", env: readerEnvironment(), windowsHide: true });
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, 19);
    } catch {
      // Gone already, or not allowed: the bootstrap tries again from inside.
    }
  }
  // Its first message says it has loaded; failing to start shows as "error" / "exit" to the reader.
  const ready = new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve());
    child.once("exit", reject);
    child.once("error", reject);
  });
  ready.catch(() => undefined);
  return { child, ready };
}
