import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, nextRetryAt, type RetryPolicy } from "./retry-schedule.js";

const HOUR = 3600 * 1_000_000;
const at = (random: number): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, random: () => random });

describe("retry schedule", () => {
  it("waits a random fraction of a ceiling of 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, then 6 h each time (docs/operations.md)", () => {
    const now = 10 * HOUR;
    // The ceilings as docs/operations.md promises them, in seconds, for the 1st to the 11th failure.
    const promised = [5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 21_600, 21_600, 21_600];
    const ceilings = promised.map((_, index) => Math.round((nextRetryAt(at(0.999_999), { attempt: index + 1, now, createdAt: now })! - now) / 1_000_000));
    expect(ceilings).toEqual(promised);
    expect(nextRetryAt(at(0), { attempt: 4, now, createdAt: now })).toBe(now);
    expect(nextRetryAt(at(0.25), { attempt: 2, now, createdAt: now })).toBe(now + 7_500_000);
    expect(nextRetryAt(at(0.5), { attempt: 6, now, createdAt: now })).toBe(now + 1_800_000_000);
  });

  it("holds the last retry to the end of the day-long window, and gives up after it", () => {
    const createdAt = 0;
    expect(nextRetryAt(at(0.9), { attempt: 12, now: 23 * HOUR, createdAt })).toBe(24 * HOUR);
    expect(nextRetryAt(at(0.9), { attempt: 13, now: 24 * HOUR, createdAt })).toBeNull();
    expect(nextRetryAt({ ...at(0.5), windowMs: 1_000 }, { attempt: 1, now: 2_000_000, createdAt })).toBeNull();
  });
});
