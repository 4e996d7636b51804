import type { Clock } from "../ports/clock.js";

/** A clock that only moves when told to, for deterministic tests. */
export interface ManualClock extends Clock {
  /** Moves time forward by `millis` milliseconds. */
  advance(millis: number): void;
  /** Sets the time, in microseconds since the epoch. */
  set(micros: number): void;
}

/** A manual clock starting at `start` (an ISO date or microseconds), ticking 1 µs per read so times are distinct. */
export function createManualClock(start: string | number = "2026-01-15T12:00:00Z"): ManualClock {
  let now = typeof start === "number" ? start : Date.parse(start) * 1000;
  return {
    now: () => now++,
    advance: (millis) => {
      now += Math.round(millis * 1000);
    },
    set: (micros) => {
      now = micros;
    },
  };
}
