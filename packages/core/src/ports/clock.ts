/** The source of time. Injected so tests control it. */
export interface Clock {
  /** Now, in integer microseconds since the Unix epoch (UTC). */
  now(): number;
}
