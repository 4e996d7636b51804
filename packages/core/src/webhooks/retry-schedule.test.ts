import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_CEILINGS_MS, DEFAULT_RETRY_POLICY, nextRetryAt, type RetryPolicy } from "./retry-schedule.js";

const HOUR = 3600 * 1_000_000;
const at = (random: number): RetryPolicy => ({ ...DEFAULT_RETRY_POLICY, random: () => random });

describe("retry schedule", () => {
  it("waits a random fraction of a ceiling that grows 5 s, 30 s, 2 min, … and stays at 6 h", () => {
    expect(DEFAULT_RETRY_CEILINGS_MS.slice(0, 3)).toEqual([5_000, 30_000, 120_000]);
    const now = 10 * HOUR;
    const waits = [1, 2, 3, 9, 20].map((attempt) => nextRetryAt(at(0.999_999), { attempt, now, createdAt: now })! - now);
    expect(waits.map((wait) => Math.round(wait / 1_000_000))).toEqual([5, 30, 120, 21_600, 21_600]);
    expect(nextRetryAt(at(0), { attempt: 4, now, createdAt: now })).toBe(now);
    expect(nextRetryAt(at(0.25), { attempt: 2, now, createdAt: now })).toBe(now + 7_500_000);
  });

  it("holds the last retry to the end of the day-long window, and gives up after it", () => {
    const createdAt = 0;
    expect(nextRetryAt(at(0.9), { attempt: 12, now: 23 * HOUR, createdAt })).toBe(24 * HOUR);
    expect(nextRetryAt(at(0.9), { attempt: 13, now: 24 * HOUR, createdAt })).toBeNull();
    expect(nextRetryAt({ ...at(0.5), windowMs: 1_000 }, { attempt: 1, now: 2_000_000, createdAt })).toBeNull();
  });
});
