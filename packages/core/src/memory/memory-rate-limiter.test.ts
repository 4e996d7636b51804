import { describe, expect, it } from "vitest";
import { runRateLimiterContract } from "../contract/rate-limiter-contract.js";
import { createManualClock } from "./manual-clock.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";

runRateLimiterContract({ create: (clock) => createMemoryRateLimiter({ clock }), createClock: () => createManualClock() });

describe("the memory rate limiter with a high limit", () => {
  it("stays exact across many hits while the window slides", async () => {
    // A clock that stands still between advances (the manual clock ticks 1 µs per read, which
    // over 10,000 reads would shift the window by 10 ms).
    let nowMs = Date.parse("2026-01-15T12:00:00Z");
    const limiter = createMemoryRateLimiter({ clock: { now: () => nowMs * 1_000 } });
    // Two hits every millisecond for 5 s against 1,000 a second: the first 500 ms of each second
    // fill the window; the next 500 ms are refused until the hits of the second before leave it.
    const allowedAt: number[] = [];
    let refused = 0;
    for (let millisecond = 0; millisecond < 5_000; millisecond += 1) {
      for (let hit = 0; hit < 2; hit += 1) {
        const decision = await limiter.hit("busy", 1_000, 1_000);
        if (decision.allowed) allowedAt.push(millisecond);
        else refused += 1;
        if (millisecond === 500 && hit === 0) expect(decision).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 500 });
      }
      nowMs += 1;
    }
    expect(refused).toBe(5_000);
    expect(allowedAt).toHaveLength(5_000);
    const expected = Array.from({ length: 5 }, (_, second) => Array.from({ length: 500 }, (_, at) => [second * 1_000 + at, second * 1_000 + at])).flat(2);
    expect(allowedAt).toEqual(expected);
    nowMs += 1_000; // every counted hit has left the window
    expect(await limiter.hit("busy", 1_000, 1_000)).toMatchObject({ allowed: true, remaining: 999 });
  });
});

describe("the memory rate limiter with keys of different windows", () => {
  it("keeps an hour's hits while a minute's keys are swept (the widget's sessions beside the per-key limit)", async () => {
    let nowMs = Date.parse("2026-01-15T12:00:00Z");
    const limiter = createMemoryRateLimiter({ clock: { now: () => nowMs * 1_000 } });
    for (let hit = 0; hit < 3; hit += 1) expect((await limiter.hit("sessions", 3, 3_600_000)).allowed).toBe(true);
    nowMs += 120_000;
    // Enough one-minute hits to trigger the idle sweep, which must not forget the hour's hits.
    for (let hit = 0; hit < 2_048; hit += 1) await limiter.hit(`key-${hit}`, 10, 60_000);
    expect(await limiter.hit("sessions", 3, 3_600_000)).toMatchObject({ allowed: false, remaining: 0 });
  });
});

describe("the memory rate limiter's memory", () => {
  it("forgets keys idle for their window within as many hits as it holds keys, and keeps the active ones", async () => {
    let nowMs = Date.parse("2026-01-15T12:00:00Z");
    const limiter = createMemoryRateLimiter({ clock: { now: () => nowMs * 1_000 } });
    for (let key = 0; key < 5_000; key += 1) await limiter.hit(`idle-${key}`, 10, 60_000);
    expect(limiter.keys).toBe(5_000);
    nowMs += 60_001; // every hit so far has left its window
    // 5,000 hits on 100 active keys: a sweep comes within as many hits as there are keys.
    for (let hit = 0; hit < 5_000; hit += 1) expect((await limiter.hit(`active-${hit % 100}`, 100, 60_000)).allowed).toBe(true);
    expect(limiter.keys).toBe(100);
    expect(await limiter.hit("active-0", 100, 60_000)).toMatchObject({ allowed: true, remaining: 49 });
  });
});
