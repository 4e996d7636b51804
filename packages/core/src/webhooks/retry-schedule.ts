import { millisToMicros } from "../support/time.js";

/**
 * Ceiling of the wait before each retry: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, then
 * 6 h. With full jitter the wait is a random fraction of the ceiling, so receivers that failed
 * together (an outage) are not all retried at the same instant when they come back.
 */
export const DEFAULT_RETRY_CEILINGS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 21_600_000];

/** docs/design.md §5: retried for about a day, then failed. */
export const DEFAULT_RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** How failed attempts are retried. */
export interface RetryPolicy {
  /** Ceiling of the wait after the 1st, 2nd, … failure; the last one repeats. */
  ceilingsMs: readonly number[];
  /** How long after its creation a delivery keeps being retried. */
  windowMs: number;
  /** A number in [0, 1): the jitter (injected so tests choose it). */
  random: () => number;
}

/** The default policy of docs/design.md §5. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { ceilingsMs: DEFAULT_RETRY_CEILINGS_MS, windowMs: DEFAULT_RETRY_WINDOW_MS, random: Math.random };

/**
 * When to retry after failed attempt number `attempt` (1 for the first), in microseconds, or
 * null to give up. Exponential backoff with full jitter; the last retry is held to the window's
 * end, so a delivery is tried right up to it and fails only after that last attempt.
 */
export function nextRetryAt(policy: RetryPolicy, input: { attempt: number; now: number; createdAt: number }): number | null {
  const deadline = input.createdAt + millisToMicros(policy.windowMs);
  if (input.now >= deadline) return null;
  const ceilings = policy.ceilingsMs;
  const ceiling = ceilings[Math.min(Math.max(input.attempt, 1), ceilings.length) - 1] ?? 0;
  const wait = millisToMicros(Math.floor(policy.random() * ceiling));
  return Math.min(input.now + wait, deadline);
}
