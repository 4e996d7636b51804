import { providerFailed } from "@parley/core";
import { setTimeout as sleep } from "node:timers/promises";
import { abortedFailure, backoffMs, DeadlineExceededError, type BoundedCallOptions } from "./call-with-retries.js";

/** A stream may take this many times the call's deadline in all, however steadily it writes. */
export const STREAM_DURATION_FACTOR = 10;

/**
 * Runs a streamed call within the provider's deadline (`PARLEY_LLM_TIMEOUT_MS`): the deadline
 * bounds the wait for the first part, every attempt and backoff included, exactly as it bounds a
 * non-streamed call, and then again every wait between two parts; the whole stream is also cut at
 * {@link STREAM_DURATION_FACTOR} times the deadline, so a provider that never stops cannot hold a
 * reply open. Failures before the first part are retried as `callWithRetries` does; after it,
 * nothing is retried (the parts are already out). Every failure leaves as `provider_failed`.
 * Stopping the iteration ends the upstream request.
 */
export async function* streamWithRetries<T>(open: (signal: AbortSignal) => AsyncIterable<T>, options: BoundedCallOptions): AsyncGenerator<T> {
  const { provider, timeoutMs } = options;
  const startedAt = performance.now();
  const deadline = new AbortController();
  // One signal for the upstream request, aborted by the deadline, the caller's signal or an early
  // stop. Linked by listeners rather than `AbortSignal.any`, which costs ~50 µs of CPU a call on
  // Node 20 (weak references, a finalization registry), on the way to the first token.
  const combined = new AbortController();
  const signal = combined.signal;
  const expire = (message: string) => () => {
    deadline.abort(new DeadlineExceededError(message));
    combined.abort(deadline.signal.reason);
  };
  const callerAborted = () => combined.abort(options.signal!.reason);
  if (options.signal?.aborted) callerAborted();
  else options.signal?.addEventListener("abort", callerAborted, { once: true });
  let gapTimer = setTimeout(expire(`The ${provider} provider did not answer within ${timeoutMs} ms.`), timeoutMs);
  const wholeTimer = setTimeout(
    expire(`The ${provider} provider did not finish its reply within ${STREAM_DURATION_FACTOR * timeoutMs} ms.`),
    STREAM_DURATION_FACTOR * timeoutMs,
  );
  let iterator: AsyncIterator<T> | undefined;
  try {
    let result: IteratorResult<T>;
    for (let retry = 0; ; retry += 1) {
      try {
        iterator = open(signal)[Symbol.asyncIterator]();
        result = await iterator.next();
        break;
      } catch (error) {
        iterator = undefined;
        if (signal.aborted) throw abortedFailure(deadline.signal, signal, error);
        const facts = options.describeFailure(error);
        const failure = providerFailed({ cause: error, upstreamStatus: facts.upstreamStatus, retryable: facts.retryable });
        if (!facts.retryable || retry >= options.retry.maxRetries) throw failure;
        const waitMs = facts.retryAfterMs ?? backoffMs(retry, options.retry, options.random ?? Math.random);
        // A wait that ends after the deadline cannot lead to an answer: give up now.
        if (waitMs >= timeoutMs - (performance.now() - startedAt)) throw failure;
        try {
          await sleep(waitMs, undefined, { signal });
        } catch {
          throw abortedFailure(deadline.signal, signal, error);
        }
      }
    }
    clearTimeout(gapTimer);
    while (!result.done) {
      yield result.value;
      // Only the provider's silence counts, not the time the reader took.
      gapTimer = setTimeout(expire(`The ${provider} provider sent nothing for ${timeoutMs} ms in the middle of a reply.`), timeoutMs);
      try {
        result = await iterator.next();
      } catch (error) {
        if (signal.aborted) throw abortedFailure(deadline.signal, signal, error);
        const facts = options.describeFailure(error);
        throw providerFailed({ cause: error, upstreamStatus: facts.upstreamStatus, retryable: facts.retryable });
      } finally {
        clearTimeout(gapTimer);
      }
    }
    iterator = undefined;
  } finally {
    clearTimeout(gapTimer);
    clearTimeout(wholeTimer);
    options.signal?.removeEventListener("abort", callerAborted);
    // A reader that stopped early, or a failure: release the upstream connection. (A stream read to
    // its end has released it already; aborting then would only build an error nobody reads.)
    if (iterator !== undefined && !signal.aborted) combined.abort();
    await iterator?.return?.().catch(() => undefined);
  }
}
