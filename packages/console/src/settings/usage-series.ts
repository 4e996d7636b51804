import type { Usage } from "../api/types.js";

/** The chart's columns: one per day of the month (UTC seconds), its messages, the running total and the limit. */
export interface UsageSeries {
  days: number[];
  perDay: number[];
  /** The month's running total, up to today; null after it (nothing to draw yet). */
  runningTotal: (number | null)[];
  limit: number[];
}

/**
 * Every day of the usage's month, with zero for the days `by_day` leaves out (the API lists only
 * days with messages): a month with one busy day still spans the whole month on the chart.
 */
export function monthSeries(usage: Usage, today: Date): UsageSeries {
  const [year, month] = usage.month.split("-").map(Number) as [number, number];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const counts = new Map(usage.by_day.map((day) => [day.date, day.messages]));
  const todayText = today.toISOString().slice(0, 10);
  const series: UsageSeries = { days: [], perDay: [], runningTotal: [], limit: [] };
  let total = 0;
  for (let day = 1; day <= daysInMonth; day += 1) {
    const date = `${usage.month}-${String(day).padStart(2, "0")}`;
    const messages = counts.get(date) ?? 0;
    total += messages;
    series.days.push(Date.UTC(year, month - 1, day) / 1000);
    series.perDay.push(messages);
    series.runningTotal.push(date <= todayText ? total : null);
    series.limit.push(usage.limit);
  }
  return series;
}

/**
 * The top of the chart's one scale. The running total is drawn against the plan's limit when it
 * has come within half of it; before that the limit would flatten every line against the bottom,
 * so the scale follows the data and the legend says the limit lies above the top.
 */
export function chartTop(series: UsageSeries, limit: number): { top: number; limitShown: boolean } {
  const used = Math.max(0, ...series.runningTotal.map((value) => value ?? 0), ...series.perDay);
  if (used >= limit * 0.5) return { top: Math.max(limit, used) * 1.05, limitShown: true };
  return { top: Math.max(used * 1.25, 5), limitShown: false };
}
