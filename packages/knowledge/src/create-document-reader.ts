import { DocumentError } from "./document-error.js";
import { fromDocumentMessage } from "./document-message.js";
import type { DocumentBytes, ReadDocument } from "./read-document.js";
import type { WorkerAnswer, WorkerRequest } from "./read-document-worker.js";
import { DEFAULT_READ_LIMITS, type ReadLimits } from "./read-limits.js";
import { TOO_COMPLEX, UNREADABLE } from "./reader-errors.js";
import { startReaderProcess, type ReaderProcess } from "./start-reader-process.js";

/** Limits of the processes that read untrusted documents (docs/configuration.md, "Documents"). */
export interface DocumentReaderOptions {
  /** Limits on the document itself (pages, sizes). */
  limits?: Partial<ReadLimits>;
  /** Wall-clock time one document may take, in milliseconds (default 30 s). */
  timeoutMs?: number;
  /** Heap one reader process may use, in MiB (default 192). */
  memoryMb?: number;
  /** Idle reader processes kept for the next document (default 1); the others end. */
  maxIdleWorkers?: number;
}

/** Reads documents in child processes, away from the caller's event loop. */
export interface DocumentReader {
  /** The document, or a DocumentError with a per-document detail (a limit hit included); never anything else. */
  read(input: DocumentBytes, signal?: AbortSignal): Promise<ReadDocument>;
  /** Ends every reader process. */
  close(): Promise<void>;
}

/** How long an idle reader process waits for another document before it ends. */
const IDLE_MS = 30_000;
/** V8's stack in a reader, in KiB: about 4 MiB, within the 8 MiB a process's main thread usually has. */
const STACK_KB = 3_984;

/**
 * Untrusted bytes are parsed in child processes at the lowest priority, with a heap limit, a
 * stack limit and a deadline (docs/design.md, "Untrusted documents"): a page of 30,000 unclosed
 * tags, a zip bomb or a PDF that takes minutes ends its process, fails as its own document, and
 * the server's event loop never waits on it. Processes rather than worker threads: a killed
 * process's heap is the kernel's to free, where ending a worker with a large heap can block a
 * main thread that allocates meanwhile, and a process's GC threads are its own, at its own
 * priority (benchmarks.md, "Hostile input"). A process that read a document cleanly is kept for
 * the next one, since loading the parsers (pdf.js above all) costs more than most documents.
 */
export function createDocumentReader(options: DocumentReaderOptions = {}): DocumentReader {
  const limits: ReadLimits = { ...DEFAULT_READ_LIMITS, ...options.limits };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const heapMb = options.memoryMb ?? 192;
  // One idle process: the next document (another tenant's first one, say) skips a start, and with
  // two ingestion runners at most three readers are alive, two of them reading.
  const maxIdle = options.maxIdleWorkers ?? 1;
  const idle: { reader: ReaderProcess; timer: ReturnType<typeof setTimeout> }[] = [];
  const busy = new Set<ReaderProcess>();

  const end = (reader: ReaderProcess) => {
    const at = idle.findIndex((entry) => entry.reader === reader);
    if (at >= 0) clearTimeout(idle.splice(at, 1)[0]!.timer);
    busy.delete(reader);
    reader.child.kill("SIGKILL");
  };
  const spawn = (): ReaderProcess => {
    const reader = startReaderProcess({ heapMb, stackKb: STACK_KB });
    // One that dies while idle is not handed out again.
    reader.child.once("exit", () => end(reader));
    return reader;
  };
  const take = (): ReaderProcess => {
    const kept = idle.pop();
    if (!kept) return spawn();
    clearTimeout(kept.timer);
    kept.reader.child.ref();
    kept.reader.child.channel?.ref();
    return kept.reader;
  };
  const release = (reader: ReaderProcess) => {
    busy.delete(reader);
    if (idle.length >= maxIdle) return end(reader);
    // An idle reader keeps neither the caller's process alive nor its event loop busy.
    reader.child.unref();
    reader.child.channel?.unref();
    const timer = setTimeout(() => end(reader), IDLE_MS);
    timer.unref();
    idle.push({ reader, timer });
  };

  function read(input: DocumentBytes, signal?: AbortSignal): Promise<ReadDocument> {
    if (signal?.aborted) return Promise.reject(new DocumentError("Reading the document was cancelled."));
    const reader = take();
    const { child } = reader;
    busy.add(reader);
    return new Promise<ReadDocument>((resolve, reject) => {
      let settled = false;
      let deadline: ReturnType<typeof setTimeout> | undefined;
      const settle = (outcome: { result: ReadDocument } | { error: string }, keepReader: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        signal?.removeEventListener("abort", cancel);
        child.off("message", onMessage).off("error", onError).off("exit", onExit);
        if (keepReader) release(reader);
        else end(reader);
        if ("result" in outcome) resolve(outcome.result);
        else reject(new DocumentError(outcome.error));
      };
      // A stack overflow the process caught (TOO_COMPLEX) is a limit hit too: that process is not reused.
      const onMessage = (message: WorkerAnswer) => {
        if ("result" in message) settle({ result: fromDocumentMessage(message.result) }, true);
        else if ("error" in message) settle(message, message.error !== TOO_COMPLEX);
      };
      const send = () => {
        if (settled) return;
        deadline = setTimeout(() => settle({ error: TOO_COMPLEX }, false), timeoutMs);
        const request: WorkerRequest = { input, limits };
        child.send(request, (error) => error && settle({ error: UNREADABLE }, false));
      };
      // Could not be started or sent to.
      const onError = () => settle({ error: UNREADABLE }, false);
      // Out of heap (V8 aborts the process), killed, or crashed while reading: a limit hit.
      const onExit = () => settle({ error: TOO_COMPLEX }, false);
      const cancel = () => settle({ error: "Reading the document was cancelled." }, false);
      child.on("error", onError).on("exit", onExit);
      signal?.addEventListener("abort", cancel, { once: true });
      // The deadline runs from when the process has loaded: a slow start on a busy machine is not the document's fault.
      reader.ready.then(() => {
        if (settled) return;
        child.on("message", onMessage);
        send();
      }, () => undefined);
    });
  }

  return {
    read,
    async close() {
      const readers = [...busy, ...idle.map((entry) => entry.reader)];
      await Promise.all(
        readers.map((reader) => {
          if (reader.child.exitCode !== null || reader.child.signalCode !== null) return undefined;
          const exited = new Promise((resolve) => reader.child.once("exit", resolve));
          end(reader);
          return exited;
        }),
      );
    },
  };
}
