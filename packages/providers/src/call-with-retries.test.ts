import { isParleyError } from "@parley/core";
import { describe, expect, test } from "vitest";
import { backoffMs, callWithRetries, DeadlineExceededError, type BoundedCallOptions } from "./call-with-retries.js";

const failure = (facts: { retryable: boolean; upstreamStatus?: number; retryAfterMs?: number }) =>
  Object.assign(new Error("upstream failure"), { facts });

const options = (overrides: Partial<BoundedCallOptions> = {}): BoundedCallOptions => ({
  provider: "Test",
  timeoutMs: 1_000,
  retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 4 },
  describeFailure: (error) => (error as ReturnType<typeof failure>).facts,
  ...overrides,
});

/** An attempt that fails with each of `failures` in turn, then answers "done". */
function scriptedAttempt(...failures: Array<ReturnType<typeof failure>>) {
  const attempt = async () => {
    attempt.calls += 1;
    const next = failures.shift();
    if (next) throw next;
    return "done";
  };
  attempt.calls = 0;
  return attempt;
}

async function rejection(promise: Promise<unknown>) {
  const error = await promise.then(() => expect.fail("should have failed"), (caught: unknown) => caught);
  if (!isParleyError(error, "provider_failed")) throw error;
  return error;
}

describe("callWithRetries", () => {
  test("returns the first success", async () => {
    const attempt = scriptedAttempt();
    await expect(callWithRetries(attempt, options())).resolves.toBe("done");
    expect(attempt.calls).toBe(1);
  });

  test("retries a retryable failure", async () => {
    const attempt = scriptedAttempt(failure({ retryable: true, upstreamStatus: 503 }));
    await expect(callWithRetries(attempt, options())).resolves.toBe("done");
    expect(attempt.calls).toBe(2);
  });

  test("does not retry a failure that is not retryable, and keeps its facts", async () => {
    const upstream = failure({ retryable: false, upstreamStatus: 400 });
    const attempt = scriptedAttempt(upstream);
    const error = await rejection(callWithRetries(attempt, options()));
    expect(attempt.calls).toBe(1);
    expect(error.cause).toBe(upstream);
    expect(error.upstreamStatus).toBe(400);
    expect(error.retryable).toBe(false);
  });

  test("stops after maxRetries", async () => {
    const attempt = scriptedAttempt(...Array.from({ length: 5 }, () => failure({ retryable: true, upstreamStatus: 500 })));
    const error = await rejection(callWithRetries(attempt, options({ retry: { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 1 } })));
    expect(attempt.calls).toBe(4);
    expect(error.retryable).toBe(true);
  });

  test("maxRetries 0 makes one attempt", async () => {
    const attempt = scriptedAttempt(failure({ retryable: true }));
    await rejection(callWithRetries(attempt, options({ retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 1 } })));
    expect(attempt.calls).toBe(1);
  });

  test("passes each attempt a signal that aborts at the deadline", async () => {
    const startedAt = performance.now();
    const hanging = (signal: AbortSignal) => new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    const error = await rejection(callWithRetries(hanging, options({ timeoutMs: 60 })));
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(55);
    expect(error.cause).toBeInstanceOf(DeadlineExceededError);
    expect((error.cause as Error).message).toBe("The Test provider did not answer within 60 ms.");
  });

  test("gives up at once when the wait asked for ends after the deadline", async () => {
    const upstream = failure({ retryable: true, upstreamStatus: 429, retryAfterMs: 5_000 });
    const attempt = scriptedAttempt(upstream);
    const error = await rejection(callWithRetries(attempt, options({ timeoutMs: 1_000 })));
    // Waiting would have ended at the deadline, with a DeadlineExceededError as the cause.
    expect(error.cause).toBe(upstream);
    expect(error.upstreamStatus).toBe(429);
    expect(attempt.calls).toBe(1);
  });

  test("waits the Retry-After that fits", async () => {
    const attempt = scriptedAttempt(failure({ retryable: true, upstreamStatus: 429, retryAfterMs: 80 }));
    const startedAt = performance.now();
    await expect(callWithRetries(attempt, options())).resolves.toBe("done");
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(75);
  });

  test("a caller's abort during the backoff ends the call as not retryable", async () => {
    const controller = new AbortController();
    // A wait of 30 s, well inside the 60 s deadline: only the caller's abort can end it in time.
    const attempt = async () => {
      attempt.calls += 1;
      setImmediate(() => controller.abort(new Error("shutdown"))); // once the backoff has begun
      throw failure({ retryable: true, retryAfterMs: 30_000 });
    };
    attempt.calls = 0;
    const error = await rejection(callWithRetries(attempt, options({ timeoutMs: 60_000, signal: controller.signal })));
    expect(error.retryable).toBe(false);
    expect((error.cause as Error).message).toBe("shutdown");
    expect(attempt.calls).toBe(1);
  });

  test("an already aborted signal makes no retry", async () => {
    const attempt = async (signal: AbortSignal) => {
      signal.throwIfAborted();
      return "done";
    };
    const error = await rejection(callWithRetries(attempt, options({ signal: AbortSignal.abort() })));
    expect(error.retryable).toBe(false);
  });
});

describe("backoffMs", () => {
  const policy = { maxRetries: 5, baseDelayMs: 100, maxDelayMs: 300 };
  test("doubles per retry, with jitter between half and all of it, and is capped", () => {
    expect(backoffMs(0, policy, () => 0)).toBe(50);
    expect(backoffMs(0, policy, () => 1)).toBe(100);
    expect(backoffMs(1, policy, () => 0.5)).toBe(150);
    expect(backoffMs(4, policy, () => 1)).toBe(300);
  });
});
