/** How many slices a deadline is cut into: commands started within one slice share its timer. */
const SLICES_PER_DEADLINE = 10;

/** Runs commands that are each refused once `timeoutMs` passed without an answer. */
export interface CommandDeadlines {
  /**
   * Runs `command`, failing with "Redis did not answer within … ms" once at most `timeoutMs`
   * (and at least nine tenths of it) passed without an answer.
   */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** Deadlines armed now (a timer each): at most two once every command has answered, for tests. */
  armed(): number;
}

/** One slice of time: the commands started in it and the one timer that fails them. */
interface Slice {
  /** Rejected when the slice's deadline passes. */
  readonly expired: Promise<never>;
  readonly timer: ReturnType<typeof setTimeout>;
  /** Until when (performance.now()) a new command joins this slice. */
  readonly openUntil: number;
  pending: number;
}

/**
 * Deadlines for the limiter's Redis commands, shared by the commands started within a tenth of
 * the timeout. node-redis's own `timeout` option does not bound the wait for an answer: it drops
 * its timer's listener once a command is written, so a Redis that hangs with its connection open
 * held every request forever; and it arms an `AbortSignal.timeout` per command, whose timer fires
 * after the answer came and builds a `DOMException` with its stack (3 % of a chat's server CPU on
 * PostgreSQL + Redis, docs/benchmarks.md). Here each slice has one timer, cleared as soon as the
 * last of its commands answered once the slice closed: under steady load none fires. A command
 * past its deadline stays in node-redis's queue until Redis answers or the connection drops
 * (`commandsQueueMaxLength` bounds that queue).
 */
export function createCommandDeadlines(timeoutMs: number): CommandDeadlines {
  const sliceMs = timeoutMs / SLICES_PER_DEADLINE;
  const armed = new Set<Slice>();
  let current: Slice | undefined;

  const disarm = (slice: Slice) => {
    clearTimeout(slice.timer);
    armed.delete(slice);
  };
  const open = (now: number): Slice => {
    let fail!: (error: Error) => void;
    const expired = new Promise<never>((_, reject) => (fail = reject));
    expired.catch(() => {}); // a slice whose commands all answered may still expire, unheard
    const slice: Slice = {
      expired,
      openUntil: now + sliceMs,
      pending: 0,
      timer: setTimeout(() => {
        armed.delete(slice);
        fail(new Error(`Redis did not answer within ${timeoutMs} ms`));
      }, timeoutMs),
    };
    slice.timer.unref();
    armed.add(slice);
    return slice;
  };

  return {
    async run(command) {
      const now = performance.now();
      if (current === undefined || now >= current.openUntil) {
        if (current !== undefined && current.pending === 0) disarm(current);
        current = open(now);
      }
      const slice = current;
      slice.pending += 1;
      try {
        return await Promise.race([command(), slice.expired]);
      } finally {
        slice.pending -= 1;
        if (slice.pending === 0 && slice !== current) disarm(slice);
      }
    },
    armed: () => armed.size,
  };
}
