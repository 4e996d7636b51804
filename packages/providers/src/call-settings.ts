import { DEFAULT_RETRY_POLICY, type RetryPolicy } from "./call-with-retries.js";
import { checkTimeoutMs, type Environment } from "./provider-environment.js";

/** Options every provider factory takes: the deadline, the retries and what tests inject. */
export interface CallSettingsOptions {
  /** Deadline of one call, all attempts and waits included. Default `PARLEY_LLM_TIMEOUT_MS`, else 60 000. */
  timeoutMs?: number;
  /** Retries after a transient failure (connection, 408, 429, 5xx). Default 2. */
  maxRetries?: number;
  /** First backoff between attempts in ms, doubled each retry, with jitter. Default 250. */
  retryBaseDelayMs?: number;
  /** Longest backoff between attempts in ms. Default 2 000. */
  retryMaxDelayMs?: number;
  /** The fetch the SDK uses; default `keepAliveFetch` (node:http keep-alive, see keep-alive-fetch.ts). */
  fetch?: typeof globalThis.fetch;
  /** Where unset options are looked up; default `process.env`. */
  env?: Environment;
}

/** The deadline and retry policy of a provider, from its options with the environment's timeout as fallback. */
export function resolveCallSettings(options: CallSettingsOptions, environmentTimeoutMs: number): { timeoutMs: number; retry: RetryPolicy } {
  const retry: RetryPolicy = {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    baseDelayMs: options.retryBaseDelayMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxDelayMs: options.retryMaxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
  };
  if (!Number.isInteger(retry.maxRetries) || retry.maxRetries < 0) {
    throw new Error(`maxRetries must be a whole number of 0 or more, got ${retry.maxRetries}.`);
  }
  return { timeoutMs: checkTimeoutMs(options.timeoutMs ?? environmentTimeoutMs), retry };
}
