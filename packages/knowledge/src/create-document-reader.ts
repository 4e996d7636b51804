import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { DocumentError } from "./document-error.js";
import type { DocumentBytes, ReadDocument } from "./read-document.js";
import type { WorkerRequest } from "./read-document-worker.js";
import { DEFAULT_READ_LIMITS, type ReadLimits } from "./read-limits.js";
import { TOO_COMPLEX, UNREADABLE } from "./reader-errors.js";

/** Limits of the worker threads that read untrusted documents (docs/configuration.md, "Documents"). */
export interface DocumentReaderOptions {
  /** Limits on the document itself (pages, sizes). */
  limits?: Partial<ReadLimits>;
  /** Wall-clock time one document may take, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Heap one worker may use, in MiB (default 192). */
  memoryMb?: number;
  /** Idle workers kept for the next document (default 2); the others end. */
  maxIdleWorkers?: number;
}

/** Reads documents in worker threads, away from the caller's event loop. */
export interface DocumentReader {
  /** The document, or a DocumentError with a per-document detail (a limit hit included); never anything else. */
  read(input: DocumentBytes, signal?: AbortSignal): Promise<ReadDocument>;
  /** Ends every worker. */
  close(): Promise<void>;
}

/** How long an idle worker waits for another document before it ends. */
const IDLE_MS = 30_000;

/**
 * Untrusted bytes are parsed in worker threads with a heap limit, a stack limit and a deadline
 * (docs/design.md, "Untrusted documents"): a page of 30,000 unclosed tags, a zip bomb or a PDF
 * that takes minutes ends its worker, fails as its own document, and the server's event loop
 * never waits on it. A worker that read a document cleanly is kept for the next one, since
 * loading the parsers (pdf.js above all) costs more than most documents.
 */
export function createDocumentReader(options: DocumentReaderOptions = {}): DocumentReader {
  const limits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...options.limits };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const memoryMb = options.memoryMb ?? 192;
  const maxIdle = options.maxIdleWorkers ?? 2;
  const idle: { worker: PooledWorker; timer: ReturnType<typeof setTimeout> }[] = [];
  const busy = new Set<PooledWorker>();

  const spawn = () =>
    startWorker({ maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(32, Math.max(4, memoryMb / 8)), stackSizeMb: 4 });

  const take = (): PooledWorker => {
    const kept = idle.pop();
    if (!kept) return spawn();
    clearTimeout(kept.timer);
    kept.worker.worker.ref();
    return kept.worker;
  };
  const release = (worker: PooledWorker) => {
    busy.delete(worker);
    if (idle.length >= maxIdle) return void worker.worker.terminate();
    worker.worker.unref();
    const timer = setTimeout(() => {
      idle.splice(idle.findIndex((entry) => entry.worker === worker), 1);
      void worker.worker.terminate();
    }, IDLE_MS);
    timer.unref();
    idle.push({ worker, timer });
  };

  function read(input: DocumentBytes, signal?: AbortSignal): Promise<ReadDocument> {
    if (signal?.aborted) return Promise.reject(new DocumentError("Reading the document was cancelled."));
    const pooled = take();
    const { worker } = pooled;
    busy.add(pooled);
    return new Promise<ReadDocument>((resolve, reject) => {
      let settled = false;
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const end = (outcome: { result: ReadDocument } | { error: string }, keepWorker: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener("abort", cancel);
        worker.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (keepWorker) release(pooled);
        else {
          busy.delete(pooled);
          void worker.terminate();
        }
        if ("result" in outcome) resolve(outcome.result);
        else reject(new DocumentError(outcome.error));
      };
      // A stack overflow the worker caught (TOO_COMPLEX) is a limit hit too: that worker is not reused.
      const onMessage = (message: { result: ReadDocument } | { error: string }) => end(message, !("error" in message && message.error === TOO_COMPLEX));
      const send = () => {
        if (settled) return;
        deadline = setTimeout(() => end({ error: TOO_COMPLEX }, false), timeoutMs);
        const request: WorkerRequest = { input: { ...input, bytes: new Uint8Array(input.bytes) }, limits };
        worker.postMessage(request, [request.input.bytes.buffer as ArrayBuffer]);
      };
      // Out of heap (ERR_WORKER_OUT_OF_MEMORY) or an error the worker could not catch.
      const onError = (error: Error & { code?: string }) => end({ error: error.code === "ERR_WORKER_OUT_OF_MEMORY" || error instanceof RangeError ? TOO_COMPLEX : UNREADABLE }, false);
      const onExit = () => end({ error: TOO_COMPLEX }, false);
      const cancel = () => end({ error: "Reading the document was cancelled." }, false);
      worker.on("error", onError).on("exit", onExit);
      signal?.addEventListener("abort", cancel, { once: true });
      // The deadline runs from when the worker has loaded: a slow start on a busy machine is not the document's fault.
      pooled.ready.then(() => {
        if (settled) return;
        worker.on("message", onMessage);
        send();
      }, () => undefined);
    });
  }

  return {
    read,
    async close() {
      const workers = [...busy, ...idle.map((entry) => entry.worker)];
      for (const entry of idle.splice(0)) clearTimeout(entry.timer);
      await Promise.all(workers.map((pooled) => pooled.worker.terminate()));
    },
  };
}

/** A worker, and when it has loaded its parsers' entry. */
interface PooledWorker {
  worker: Worker;
  ready: Promise<void>;
}

/**
 * On Linux a thread has its own nice value, and a thread it starts inherits it. A worker lowers
 * its own (found through /proc/thread-self) to 19 as its first statement, before it loads
 * anything: loading the parsers, and from the TypeScript sources the module-hooks thread tsx's
 * `register()` starts, then run at nice 19 too, yielding the CPU to the server's event loop.
 * Elsewhere, or when not allowed, the worker keeps the process's priority; the limits still
 * bound the document.
 */
const LOWER_PRIORITY = `try {
  const threadId = Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop());
  if (Number.isSafeInteger(threadId) && threadId > 0) require("node:os").setPriority(threadId, 19);
} catch {}`;

/**
 * A worker on `read-document-worker`: the built `.js` beside this module in `dist`, or, when
 * this module runs from its TypeScript sources (tests, `--conditions=source`), the `.ts` entry
 * loaded through tsx, which the worker registers for itself (a worker does not share its
 * parent's module hooks, and Vitest's transform is not a Node loader). Either way a small
 * bootstrap lowers the thread's priority first, then imports the entry.
 */
function startWorker(resourceLimits: { maxOldGenerationSizeMb: number; maxYoungGenerationSizeMb: number; stackSizeMb: number }): PooledWorker {
  const fromSources = import.meta.url.endsWith(".ts");
  const entry = new URL(`./read-document-worker.${fromSources ? "ts" : "js"}`, import.meta.url);
  let load = `import(${JSON.stringify(entry.href)})`;
  if (fromSources) {
    const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx/esm/api").replace(/\.cjs$/, ".mjs")).href;
    load = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return ${load}; })`;
  }
  const worker = new Worker(`${LOWER_PRIORITY}\n${load};`, { resourceLimits, execArgv: [], stdout: false, stderr: false, eval: true });
  // Its first message says it has loaded; failing to start shows as "error" / "exit" to the reader.
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("exit", reject);
  });
  ready.catch(() => undefined);
  return { worker, ready };
}
