import { useEffect, useRef } from "preact/hooks";
import type uPlot from "uplot";
import type { Usage } from "../api/types.js";
import { chartTop, monthSeries } from "./usage-series.js";

/**
 * This month on one scale: the messages of each day as bars, the running total as a line, and
 * the plan's limit, drawn by uPlot. The legend names every series and its figure without
 * hovering. uPlot is loaded with this screen only (a chunk of its own, from the same origin),
 * which keeps it out of the console's first load.
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
  const series = monthSeries(usage, new Date());
  const { top, limitShown } = chartTop(series, usage.limit);
  const count = (value: number) => value.toLocaleString("en-US");
  return new UPlot(
    {
      width: Math.max(Math.min(element.clientWidth, 900), 280),
      height: 260,
      // Not live: the legend shows each series' label with its figure, not "--" until hovered.
      legend: { live: false },
      cursor: { show: false },
      scales: { x: { time: true, range: [series.days[0]! - 43_200, series.days.at(-1)! + 43_200] }, y: { range: [0, top] } },
      axes: [{}, { label: "messages", size: 50 }],
      series: [
        {},
        { label: "Messages per day", stroke: "#2563eb", fill: "rgba(37,99,235,0.35)", paths: UPlot.paths.bars!({ size: [0.6, 40] }), points: { show: false } },
        { label: `Used this month: ${count(usage.used)}`, stroke: "#059669", width: 2.5, points: { show: false } },
        {
          label: limitShown ? `Plan limit: ${count(usage.limit)}` : `Plan limit: ${count(usage.limit)} (above the top of the chart)`,
          stroke: "#dc2626",
          dash: [6, 4],
          width: 1.5,
          points: { show: false },
        },
      ],
    },
    [series.days, series.perDay, series.runningTotal, series.limit],
    element,
  );
}
