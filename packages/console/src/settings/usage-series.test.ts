import { describe, expect, it } from "vitest";
import type { Usage } from "../api/types.js";
import { chartTop, monthSeries } from "./usage-series.js";

const usage: Usage = {
  plan: "free",
  limit: 1000,
  used: 7,
  remaining: 993,
  month: "2026-02",
  resets_at: "2026-03-01T00:00:00.000000+00:00",
  by_chatbot: [],
  feedback_by_chatbot: [],
  by_day: [
    { date: "2026-02-03", messages: 2 },
    { date: "2026-02-05", messages: 5 },
  ],
};

describe("monthSeries", () => {
  it("spans every day of the month, with zeros for quiet days and the total up to today", () => {
    const series = monthSeries(usage, new Date("2026-02-06T12:00:00Z"));
    expect(series.days).toHaveLength(28);
    expect(series.days[0]).toBe(Date.UTC(2026, 1, 1) / 1000);
    expect(series.perDay.slice(0, 6)).toEqual([0, 0, 2, 0, 5, 0]);
    expect(series.runningTotal.slice(0, 8)).toEqual([0, 0, 2, 2, 7, 7, null, null]);
    expect(new Set(series.limit)).toEqual(new Set([1000]));
  });

  it("draws against the limit once the total is within half of it, and follows the data before", () => {
    const quiet = monthSeries(usage, new Date("2026-02-06T12:00:00Z"));
    expect(chartTop(quiet, 1000)).toEqual({ top: 8.75, limitShown: false });
    expect(chartTop(quiet, 10)).toEqual({ top: 10.5, limitShown: true });
    expect(chartTop(monthSeries({ ...usage, by_day: [] }, new Date("2026-02-06T12:00:00Z")), 1000)).toEqual({ top: 5, limitShown: false });
  });

  it("knows leap years", () => {
    expect(monthSeries({ ...usage, month: "2028-02", by_day: [] }, new Date("2028-03-01T00:00:00Z")).days).toHaveLength(29);
  });
});
