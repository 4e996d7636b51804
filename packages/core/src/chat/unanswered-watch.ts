import type { Dependencies } from "../dependencies.js";

/** How the watch for replies cut off with their process runs. */
export interface UnansweredWatchOptions {
  /**
   * How long after `start()` it looks, in milliseconds (default 120,000): time for the replies
   * other processes were generating when this one started to be stored.
   */
  afterMs?: number;
  /** Where it says what it marked, and its own faults. */
  log?: (line: Record<string, unknown>) => void;
}

/** Marks, once, the conversations whose visitor was left without a reply when a process ended. */
export interface UnansweredWatch {
  /** Looks once, `afterMs` from now, at the messages stored before now. */
  start(): void;
  /** Marks the conversations left unanswered since before `before` (now by default); resolves with how many. */
  runOnce(before?: number): Promise<number>;
  /** Cancels a look not yet taken, and waits for one under way. */
  stop(): Promise<void>;
}

/** The default of `UnansweredWatchOptions.afterMs`: two of the providers' default 60 s deadlines. */
export const UNANSWERED_AFTER_MS = 120_000;

/**
 * A reply is generated after its visitor message is stored, and stored when the model is done;
 * a process killed in between (a crash, kill -9, a lost machine) stores neither the reply nor
 * the failure a graceful stop would mark. After a start, the watch looks once at the messages
 * stored before it and marks each conversation whose latest message is still a visitor's, with
 * no takeover or hand-back since, as needing an agent (`provider_failed`, the rule of an
 * unanswered message since SQLite migration 5). It waits `afterMs` first, so that replies other
 * processes had under way are stored by then; one that took longer is marked and then cleared
 * by its own reply, as any reply clears the mark.
 */
export function createUnansweredWatch(dependencies: Pick<Dependencies, "storage" | "clock">, options: UnansweredWatchOptions = {}): UnansweredWatch {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const runOnce = async (before = dependencies.clock.now()): Promise<number> => {
    const marked = await dependencies.storage.markUnansweredConversations({ before, at: dependencies.clock.now() });
    if (marked > 0) options.log?.({ level: "warn", event: "unanswered_conversations_marked", conversations: marked, before });
    return marked;
  };

  return {
    start() {
      if (timer !== undefined) return;
      const startedAt = dependencies.clock.now();
      timer = setTimeout(() => {
        running = runOnce(startedAt).catch((error: unknown) =>
          options.log?.({ level: "error", event: "unanswered_watch_failed", error: error instanceof Error ? error.message : String(error) }),
        );
      }, options.afterMs ?? UNANSWERED_AFTER_MS);
      timer.unref?.();
    },
    runOnce,
    async stop() {
      clearTimeout(timer);
      await running;
    },
  };
}
