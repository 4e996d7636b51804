import { describe, expect, it } from "vitest";
import type { ManualClock } from "../memory/manual-clock.js";
import type { RateLimiter } from "../ports/rate-limiter.js";
import { skipper, type SkippedCase } from "./skip.js";

/** How the suite gets a fresh limiter driven by a clock the suite moves. */
export interface RateLimiterContractOptions {
  create: (clock: ManualClock) => RateLimiter | Promise<RateLimiter>;
  createClock: () => ManualClock;
  skip?: SkippedCase[];
}

const CASES = [
  "allows up to the limit in a window, then refuses",
  "refused hits are not counted",
  "the window slides: a hit is allowed again once the oldest leaves",
  "keys are independent",
  "reports remaining, retry-after and reset",
  "concurrent hits never exceed the limit",
  "hitInOrder counts hits in order and stops at the first refused one",
] as const;

/** The behaviour every RateLimiter adapter must have: an exact sliding window. */
export function runRateLimiterContract(options: RateLimiterContractOptions): void {
  const skipped = skipper("RateLimiter contract", CASES, options.skip);
  const setup = async () => {
    const clock = options.createClock();
    return { clock, limiter: await options.create(clock) };
  };
  const test = (name: (typeof CASES)[number], body: () => Promise<void>) => (skipped(name) ? it.skip : it)(name, body);

  describe("RateLimiter contract", () => {
    test("hitInOrder counts hits in order and stops at the first refused one", async () => {
      const { limiter } = await setup();
      const both = [{ key: "first", limit: 2, windowMs: 60_000 }, { key: "second", limit: 1, windowMs: 60_000 }];
      const first = await limiter.hitInOrder(both);
      expect(first.map((decision) => [decision.allowed, decision.remaining])).toEqual([[true, 1], [true, 0]]);
      // The second refused: the first was counted.
      expect((await limiter.hitInOrder(both)).map((decision) => decision.allowed)).toEqual([true, false]);
      // The first refused: the second is not tried, so not counted either way.
      expect((await limiter.hitInOrder(both)).map((decision) => decision.allowed)).toEqual([false]);
      expect((await limiter.hit("first", 2, 60_000)).allowed).toBe(false);
      const third = await limiter.hitInOrder([{ key: "third", limit: 1, windowMs: 60_000 }, { key: "first", limit: 2, windowMs: 60_000 }]);
      expect(third.map((decision) => decision.allowed)).toEqual([true, false]);
      expect(third[1]!.retryAfterMs).toBeGreaterThan(0);
      expect(await limiter.hitInOrder([])).toEqual([]);
    });

    test("allows up to the limit in a window, then refuses", async () => {
      const { limiter } = await setup();
      const outcomes = [];
      for (let index = 0; index < 4; index += 1) outcomes.push((await limiter.hit("k", 3, 60_000)).allowed);
      expect(outcomes).toEqual([true, true, true, false]);
    });

    test("refused hits are not counted", async () => {
      const { clock, limiter } = await setup();
      await limiter.hit("k", 2, 60_000);
      clock.advance(30_000);
      await limiter.hit("k", 2, 60_000);
      for (let index = 0; index < 5; index += 1) expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(false);
      clock.advance(30_001); // only the first counted hit has left the window
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(true);
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(false);
    });

    test("the window slides: a hit is allowed again once the oldest leaves", async () => {
      const { clock, limiter } = await setup();
      await limiter.hit("k", 2, 60_000);
      clock.advance(59_000);
      await limiter.hit("k", 2, 60_000);
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(false);
      clock.advance(999);
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(false);
      clock.advance(2);
      expect((await limiter.hit("k", 2, 60_000)).allowed).toBe(true);
    });

    test("keys are independent", async () => {
      const { limiter } = await setup();
      expect((await limiter.hit("a", 1, 60_000)).allowed).toBe(true);
      expect((await limiter.hit("a", 1, 60_000)).allowed).toBe(false);
      expect((await limiter.hit("b", 1, 60_000)).allowed).toBe(true);
    });

    test("reports remaining, retry-after and reset", async () => {
      const { clock, limiter } = await setup();
      const first = await limiter.hit("k", 2, 60_000);
      expect(first).toMatchObject({ allowed: true, limit: 2, remaining: 1, retryAfterMs: 0 });
      expect(first.resetMs).toBeGreaterThan(59_000);
      clock.advance(10_000);
      await limiter.hit("k", 2, 60_000);
      const refused = await limiter.hit("k", 2, 60_000);
      expect(refused).toMatchObject({ allowed: false, remaining: 0 });
      // The first hit leaves the window 50 s from now.
      expect(refused.retryAfterMs).toBeGreaterThan(49_000);
      expect(refused.retryAfterMs).toBeLessThanOrEqual(50_000);
      expect(refused.resetMs).toBeGreaterThan(59_000);
    });

    test("concurrent hits never exceed the limit", async () => {
      const { limiter } = await setup();
      const decisions = await Promise.all(Array.from({ length: 25 }, () => limiter.hit("k", 10, 60_000)));
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    });
  });
}
