import { useEffect, useRef } from "preact/hooks";
import type uPlot from "uplot";
import type { Usage } from "../api/types.js";
import { monthSeries } from "./usage-series.js";

/**
 * Messages per day, and the month's running total against the plan's limit, drawn by uPlot.
 * uPlot is loaded with this screen only (a chunk of its own, from the same origin), which keeps
 * it out of the console's first load.
 */
export function UsageChart({ usage }: { usage: Usage }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let chart: uPlot | undefined;
    let cancelled = false;
    void import("uplot").then(({ default: UPlot }) => {
      if (!cancelled) chart = draw(UPlot, usage, host.current);
    });
    return () => {
      cancelled = true;
      chart?.destroy();
    };
  }, [usage]);
  return <div ref={host} class="chart" role="img" aria-label={`Chart of messages per day in ${usage.month}: ${usage.used} of ${usage.limit} used`} />;
}

/** Draws the chart into the element; undefined when the element is gone. */
function draw(UPlot: typeof uPlot, usage: Usage, element: HTMLDivElement | null): uPlot | undefined {
  if (!element) return undefined;
  const { days, perDay, runningTotal, limit } = monthSeries(usage, new Date());
  return new UPlot(
    {
      width: Math.max(element.clientWidth, 320),
      height: 260,
      // Two scales: the day's messages as bars (left), the month's running total against the
      // plan's limit (right); on one scale the bars would vanish under a limit of thousands.
      scales: { x: { time: true, range: [days[0]! - 43_200, days.at(-1)! + 43_200] }, day: { range: (_chart, _min, max) => [0, Math.max(max, 5) * 1.1] }, month: { range: (_chart, _min, max) => [0, Math.max(max, usage.limit) * 1.05] } },
      axes: [{}, { scale: "day", label: "messages per day" }, { scale: "month", side: 1, label: "this month", grid: { show: false } }],
      series: [
        {},
        { label: "Messages that day", scale: "day", stroke: "#2563eb", fill: "rgba(37,99,235,0.35)", paths: UPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } },
        { label: "Used this month", scale: "month", stroke: "#059669", width: 2, points: { show: false } },
        { label: `Plan limit (${usage.limit.toLocaleString()})`, scale: "month", stroke: "#dc2626", dash: [6, 4], width: 1.5, points: { show: false } },
      ],
    },
    [days, perDay, runningTotal, limit],
    element,
  );
}
