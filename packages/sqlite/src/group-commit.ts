import type { Database } from "better-sqlite3";

/** Write steps committed together: each resolves once the transaction holding it committed. */
export interface GroupCommit {
  /**
   * Runs `step` (synchronous SQL, no `await` inside) with the other steps that arrive in the
   * same turn of the event loop, in one transaction, and resolves with its result after the
   * commit. A step may run twice (see createGroupCommit): its only effects must be on the database.
   */
  run<Result>(step: () => Result): Promise<Result>;
  /** Runs the steps waiting now, at once (before the connection closes). */
  flush(): void;
}

interface Waiting {
  step: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Group commit for the chat's writes. A commit costs about the same whatever it holds: the write
 * lock taken and released, and each page it changed written to the WAL with its checksum, and
 * chats answered together change the same pages (the tails of the messages, of the
 * conversations' activity indexes, of the outbox). So the steps that arrive within one turn of
 * the event loop run at the turn's end (`setImmediate`), in order, in one transaction through
 * `write`, and share its commit.
 *
 * No promise resolves before the commit that holds its step, so an answer is never sent for a
 * write that could still be lost. Each step stays atomic on its own: when one throws, the
 * group's transaction is rolled back whole and every step of it runs again alone, in order, in a
 * transaction of its own, so only the step that fails fails, with its own error. (A savepoint
 * per step would keep the others without running them again; measured, it made a chat dearer
 * than no grouping at all: docs/benchmarks.md, "A twelfth host".)
 * When the transaction cannot begin (another process holds the write lock past the busy
 * timeout), no step has run, and every one rejects with that error.
 */
export function createGroupCommit(database: Database, write: <Result>(step: () => Result) => Result): GroupCommit {
  let waiting: Waiting[] = [];
  let scheduled: ReturnType<typeof setImmediate> | undefined;

  const runAlone = ({ step, resolve, reject }: Waiting) => {
    try {
      resolve(write(step));
    } catch (error) {
      reject(error);
    }
  };

  const runTogether = (group: Waiting[]) => {
    let began = false;
    let values: unknown[];
    try {
      values = write(() => {
        began = true;
        return group.map(({ step }) => {
          const value = step();
          // A step that swallowed an error after which SQLite rolled the transaction back must
          // not leave the next ones to run outside it, each its own commit.
          if (!database.inTransaction) throw new Error("A grouped write step ended its transaction.");
          return value;
        });
      });
    } catch (error) {
      if (!began) for (const { reject } of group) reject(error);
      else for (const each of group) runAlone(each);
      return;
    }
    values.forEach((value, index) => group[index]!.resolve(value));
  };

  const flush = () => {
    if (scheduled !== undefined) clearImmediate(scheduled);
    scheduled = undefined;
    const group = waiting;
    waiting = [];
    if (group.length === 1) runAlone(group[0]!);
    else if (group.length > 1) runTogether(group);
  };

  return {
    run<Result>(step: () => Result): Promise<Result> {
      return new Promise<Result>((resolve, reject) => {
        waiting.push({ step, resolve: resolve as (value: unknown) => void, reject });
        scheduled ??= setImmediate(flush);
      });
    },
    flush,
  };
}
