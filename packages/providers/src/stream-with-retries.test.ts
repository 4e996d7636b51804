import { isParleyError } from "@parley/core";
import { describe, expect, test } from "vitest";
import type { BoundedCallOptions } from "./call-with-retries.js";
import { streamWithRetries } from "./stream-with-retries.js";

const options = (overrides: Partial<BoundedCallOptions> = {}): BoundedCallOptions => ({
  provider: "Test",
  timeoutMs: 60_000,
  retry: { maxRetries: 0, baseDelayMs: 1, maxDelayMs: 4 },
  describeFailure: () => ({ retryable: false }),
  ...overrides,
});

/** An upstream stream that gives `parts` and then waits until its signal aborts; it keeps the signal it was given. */
function upstream(parts: string[], options: { thenEnd?: boolean } = {}) {
  const seen: { signal?: AbortSignal } = {};
  const open = (signal: AbortSignal) => {
    seen.signal = signal;
    return (async function* () {
      yield* parts;
      if (options.thenEnd) return;
      await new Promise<void>((_, reject) => {
        if (signal.aborted) reject(signal.reason as Error);
        else signal.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
      });
    })();
  };
  return { open, seen };
}

describe("streamWithRetries", () => {
  test("a reader that stops early ends the upstream request", async () => {
    const { open, seen } = upstream(["Hel", "lo"]);
    const stream = streamWithRetries(open, options());
    expect((await stream.next()).value).toBe("Hel");
    await stream.return(undefined);
    expect(seen.signal?.aborted).toBe(true);
  });

  test("the caller's signal ends the upstream request with its reason, as provider_failed not retryable", async () => {
    const { open, seen } = upstream(["Hel"]);
    const caller = new AbortController();
    const stream = streamWithRetries(open, options({ signal: caller.signal }));
    expect((await stream.next()).value).toBe("Hel");
    const reason = new Error("shutting down");
    caller.abort(reason);
    const error = await stream.next().then(() => expect.fail("should have failed"), (caught: unknown) => caught);
    if (!isParleyError(error, "provider_failed")) throw error;
    expect(error.retryable).toBe(false);
    expect(seen.signal?.reason).toBe(reason);
  });

  test("a stream read to its end leaves the caller's signal without a listener of its own", async () => {
    const { open } = upstream(["Hel", "lo"], { thenEnd: true });
    const caller = new AbortController();
    let listeners = 0;
    const add = caller.signal.addEventListener.bind(caller.signal);
    const remove = caller.signal.removeEventListener.bind(caller.signal);
    caller.signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners += 1, add(...args))) as typeof add;
    caller.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners -= 1, remove(...args))) as typeof remove;
    const parts: string[] = [];
    for await (const part of streamWithRetries(open, options({ signal: caller.signal }))) parts.push(part);
    expect(parts).toEqual(["Hel", "lo"]);
    expect(listeners).toBe(0);
  });
});
