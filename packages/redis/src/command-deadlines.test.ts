import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createCommandDeadlines } from "./command-deadlines.js";

/** A command that answers only when told to. */
function pendingCommand() {
  let answer!: (value: string) => void;
  const promise = new Promise<string>((resolve) => (answer = resolve));
  return { run: () => promise, answer: (value: string) => answer(value) };
}

const outcomeOf = (promise: Promise<unknown>) => {
  const outcome = { settled: undefined as string | undefined };
  promise.then(
    (value) => (outcome.settled = `answered ${String(value)}`),
    (error: Error) => (outcome.settled = error.message),
  );
  return outcome;
};

describe("shared command deadlines", () => {
  beforeEach(() => void vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] }));
  afterEach(() => void vi.useRealTimers());

  it("refuses a command that has no answer once its deadline passed, not before, with what happened", async () => {
    const deadlines = createCommandDeadlines(1_000);
    const outcome = outcomeOf(deadlines.run(pendingCommand().run));
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome.settled).toBe("Redis did not answer within 1000 ms");
  });

  it("gives a command started later in the same slice at least nine tenths of the timeout", async () => {
    const deadlines = createCommandDeadlines(1_000);
    outcomeOf(deadlines.run(pendingCommand().run));
    await vi.advanceTimersByTimeAsync(99);
    const later = outcomeOf(deadlines.run(pendingCommand().run));
    await vi.advanceTimersByTimeAsync(900);
    expect(later.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(later.settled).toBe("Redis did not answer within 1000 ms");
  });

  it("gives a command of the next slice a deadline of its own", async () => {
    const deadlines = createCommandDeadlines(1_000);
    const first = outcomeOf(deadlines.run(pendingCommand().run));
    await vi.advanceTimersByTimeAsync(100);
    const second = outcomeOf(deadlines.run(pendingCommand().run));
    await vi.advanceTimersByTimeAsync(900);
    expect(first.settled).toBe("Redis did not answer within 1000 ms");
    expect(second.settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(100);
    expect(second.settled).toBe("Redis did not answer within 1000 ms");
  });

  it("passes an answer and an error through", async () => {
    const deadlines = createCommandDeadlines(1_000);
    expect(await deadlines.run(async () => 42)).toBe(42);
    await expect(deadlines.run(() => Promise.reject(new Error("NOSCRIPT No matching script")))).rejects.toThrow("NOSCRIPT");
  });

  it("leaves no timer to fire once every command of a closed slice answered", async () => {
    const deadlines = createCommandDeadlines(1_000);
    for (let slice = 0; slice < 30; slice += 1) {
      await Promise.all(Array.from({ length: 5 }, () => deadlines.run(async () => "ok")));
      await vi.advanceTimersByTimeAsync(100);
    }
    // Only the slice still open keeps its timer: every earlier one was cleared.
    expect(deadlines.armed()).toBe(1);
    expect(vi.getTimerCount()).toBe(1);
  });

  it("keeps the deadline of a closed slice whose command is still waiting, until it answers", async () => {
    const deadlines = createCommandDeadlines(1_000);
    const waiting = pendingCommand();
    const outcome = outcomeOf(deadlines.run(waiting.run));
    await vi.advanceTimersByTimeAsync(500);
    await deadlines.run(async () => "a later command");
    expect(deadlines.armed()).toBe(2);
    waiting.answer("late");
    await vi.advanceTimersByTimeAsync(0);
    expect(outcome.settled).toBe("answered late");
    expect(deadlines.armed()).toBe(1);
  });
});
