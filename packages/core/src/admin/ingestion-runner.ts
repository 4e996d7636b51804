import type { Dependencies } from "../dependencies.js";
import type { KnowledgeSources } from "../ports/knowledge-sources.js";
import { millisToMicros } from "../support/time.js";
import { INGESTION_LEASE_MS, runIngestion } from "./ingestion-jobs.js";

/** How the background ingestions run. */
export interface IngestionRunnerOptions {
  /** Reads files and URLs; without it only text ingestions succeed. */
  sources?: KnowledgeSources;
  /** Ingestions read at once (default 2): each is mostly waiting on fetches and the embedder. */
  concurrency?: number;
  /**
   * Ingestions of one user read at once (default 1), across every process sharing the storage:
   * the other runners stay free for other users, whose first document then waits for no one's queue.
   */
  perUser?: number;
  /** How often to look for work queued by another process (default 1,000 ms). */
  pollMs?: number;
  /** Where faults of the runner itself go. */
  log?: (line: Record<string, unknown>) => void;
}

/** Runs queued ingestions in the background of a server process. */
export interface IngestionRunner {
  start(): void;
  /** Looks for work now (after an ingestion was queued in this process). */
  wake(): void;
  /** Claims and runs ingestions until none is left; resolves when they are done. */
  runOnce(): Promise<number>;
  /** Stops claiming and aborts the runs in flight; their leases end and another runner resumes them. */
  stop(): Promise<void>;
}

/**
 * A pool of `concurrency` workers that claim ingestions from storage: queued ones, and running
 * ones whose runner died (lease ended), so a restart resumes them and several processes share
 * the work. Each run renews its lease while it reads.
 */
export function createIngestionRunner(dependencies: Pick<Dependencies, "storage" | "searchIndex" | "embedder" | "ids" | "clock">, options: IngestionRunnerOptions = {}): IngestionRunner {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const perUser = Math.max(1, options.perUser ?? 1);
  const abort = new AbortController();
  const workers = new Set<Promise<void>>();
  let timer: ReturnType<typeof setInterval> | undefined;

  const claimAndRun = async (): Promise<boolean> => {
    const now = dependencies.clock.now();
    const ingestion = await dependencies.storage.claimIngestion({ now, leaseUntil: now + millisToMicros(INGESTION_LEASE_MS), perUser });
    if (!ingestion) return false;
    await runIngestion(dependencies, ingestion, { sources: options.sources, signal: abort.signal });
    return true;
  };
  const worker = async () => {
    try {
      while (!abort.signal.aborted && (await claimAndRun()));
    } catch (error) {
      options.log?.({ level: "error", event: "ingestion_runner_failed", error: error instanceof Error ? error.message : String(error) });
    }
  };
  const fill = () => {
    while (!abort.signal.aborted && workers.size < concurrency) {
      const running: Promise<void> = worker().finally(() => workers.delete(running));
      workers.add(running);
    }
  };

  return {
    start() {
      fill();
      timer ??= setInterval(fill, options.pollMs ?? 1_000);
      timer.unref?.();
    },
    wake: () => {
      if (timer !== undefined) fill();
    },
    async runOnce() {
      let runs = 0;
      while (await claimAndRun()) runs += 1;
      return runs;
    },
    async stop() {
      clearInterval(timer);
      abort.abort();
      await Promise.allSettled([...workers]);
    },
  };
}
