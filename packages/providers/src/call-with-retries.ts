import { providerFailed } from "@parley/core";
import { setTimeout as sleep } from "node:timers/promises";

/** How often and how fast a failed call is retried; the deadline bounds all of it. */
export interface RetryPolicy {
  /** Attempts after the first one; 0 turns retries off. */
  maxRetries: number;
  /** The first backoff; it doubles on each retry, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  /** The longest backoff between two attempts. */
  maxDelayMs: number;
}

/** Two retries, 250 ms then 500 ms (each jittered down to half), within the call's deadline. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 250, maxDelayMs: 2_000 };

/** What one failed attempt tells the retry loop. */
export interface FailureFacts {
  /** Whether another attempt may succeed (connection failures, 408, 429, 5xx). */
  retryable: boolean;
  /** The upstream HTTP status, for the log. */
  upstreamStatus?: number;
  /** The wait the provider asked for (Retry-After), in milliseconds. */
  retryAfterMs?: number;
}

/** The settings of one bounded call. */
export interface BoundedCallOptions {
  /** Names the provider in the timeout message of the log. */
  provider: string;
  /** The deadline of the whole call: every attempt and every wait fit inside it. */
  timeoutMs: number;
  retry: RetryPolicy;
  /** The caller's signal (shutdown, or the core's own deadline); aborting it ends the call. */
  signal?: AbortSignal | undefined;
  /** Classifies a failed attempt. */
  describeFailure: (error: unknown) => FailureFacts;
  /** Source of jitter, replaceable in tests. */
  random?: () => number;
}

/** The cause recorded when a call runs out of time; its `cause` is the last attempt's error. */
export class DeadlineExceededError extends Error {
  override readonly name = "DeadlineExceededError";
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, the retries are used up or the
 * deadline passes. Every failure leaves as a `provider_failed` ParleyError whose cause is the
 * upstream error, so no upstream text can reach the caller's `detail`.
 */
export async function callWithRetries<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  options: BoundedCallOptions,
): Promise<T> {
  const startedAt = performance.now();
  const deadline = new AbortController();
  const timer = setTimeout(() => {
    deadline.abort(new DeadlineExceededError(`The ${options.provider} provider did not answer within ${options.timeoutMs} ms.`));
  }, options.timeoutMs);
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
  try {
    for (let retry = 0; ; retry += 1) {
      try {
        return await attempt(signal);
      } catch (error) {
        if (signal.aborted) throw abortedFailure(deadline.signal, signal, error);
        const facts = options.describeFailure(error);
        const failure = providerFailed({ cause: error, upstreamStatus: facts.upstreamStatus, retryable: facts.retryable });
        if (!facts.retryable || retry >= options.retry.maxRetries) throw failure;
        const remainingMs = options.timeoutMs - (performance.now() - startedAt);
        const waitMs = facts.retryAfterMs ?? backoffMs(retry, options.retry, options.random ?? Math.random);
        // A wait that ends after the deadline cannot lead to an answer: give up now.
        if (waitMs >= remainingMs) throw failure;
        try {
          await sleep(waitMs, undefined, { signal });
        } catch {
          throw abortedFailure(deadline.signal, signal, error);
        }
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** Exponential backoff with "equal jitter": between half and all of base·2^retry, capped. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return ceiling / 2 + (random() * ceiling) / 2;
}

/** The failure of a call its signal ended: the deadline's (retryable), or the caller's (not ours to retry). */
export function abortedFailure(deadline: AbortSignal, combined: AbortSignal, lastError: unknown) {
  if (deadline.aborted) {
    const timeout = deadline.reason as DeadlineExceededError;
    // fetch rejects with the abort reason itself; otherwise keep the SDK's error as the cause.
    const cause = lastError === timeout ? timeout : new DeadlineExceededError(timeout.message, { cause: lastError });
    return providerFailed({ cause, retryable: true });
  }
  // The caller gave up (shutdown or its own deadline): retrying is not ours to decide.
  return providerFailed({ cause: combined.reason ?? lastError, retryable: false });
}
