/**
 * A one-reader queue between a producer that must run to its end and a reader that may stop at
 * any time: pushes never wait for the reader, and once the reader has gone they are dropped.
 */
export interface EventChannel<T> {
  /** Queues a value for the reader; ignored once the channel is closed or the reader gone. */
  push(value: T): void;
  /** Ends the channel: the reader gets what is queued, then the end. */
  close(): void;
  /** Ends the channel with a failure: the reader gets what is queued, then `error` is thrown. */
  fail(error: unknown): void;
  /** The values in order; stopping the iteration leaves the producer running. */
  read(): AsyncGenerator<T>;
}

/** Creates an {@link EventChannel}. */
export function createEventChannel<T>(): EventChannel<T> {
  const queued: T[] = [];
  let end: { failed: false } | { failed: true; error: unknown } | null = null;
  let wake: (() => void) | null = null;
  let readerGone = false;
  const notify = () => {
    wake?.();
    wake = null;
  };
  return {
    push(value) {
      if (end !== null || readerGone) return;
      queued.push(value);
      notify();
    },
    close() {
      if (end !== null) return;
      end = { failed: false };
      notify();
    },
    fail(error) {
      if (end !== null) return;
      end = { failed: true, error };
      notify();
    },
    async *read() {
      try {
        for (;;) {
          if (queued.length > 0) {
            yield queued.shift()!;
            continue;
          }
          if (end?.failed) throw end.error;
          if (end) return;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        readerGone = true;
        queued.length = 0;
      }
    },
  };
}
