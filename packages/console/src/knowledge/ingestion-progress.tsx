import { useEffect } from "preact/hooks";
import type { Ingestion } from "../api/types.js";
import { plural } from "../ui/format.js";
import { getIngestion, isFinished } from "./knowledge-data.js";

const POLL_MS = 700;

/**
 * Follows running ingestions by polling their route (ingestion progress is not an event of
 * docs/design.md §10), and reports each change; `onFinished` lets the page reload its documents.
 */
export function useIngestionPolling(ingestions: Ingestion[], onUpdate: (ingestion: Ingestion) => void, onFinished: () => void) {
  const running = ingestions.filter((ingestion) => !isFinished(ingestion)).map((ingestion) => ingestion.id);
  const key = running.join(",");
  useEffect(() => {
    if (running.length === 0) return;
    let stopped = false;
    const timer = setInterval(async () => {
      for (const id of running) {
        try {
          const next = await getIngestion(id);
          if (stopped) return;
          onUpdate(next);
          if (isFinished(next)) onFinished();
        } catch {
          // A failed poll is tried again at the next tick.
        }
      }
    }, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [key]);
}

/** How an ingestion ended, or that it has not: a run where every document failed is a failure, whatever its status. */
export type Outcome = "queued" | "running" | "succeeded" | "partial" | "failed";

/** The outcome an agent should see: `failed` when nothing could be read, `partial` when some documents failed. */
export function outcomeOf(ingestion: Ingestion): Outcome {
  if (ingestion.status === "queued" || ingestion.status === "running") return ingestion.status;
  if (ingestion.status === "failed") return "failed";
  if (ingestion.errors.length === 0) return "succeeded";
  return ingestion.errors.length >= ingestion.documents_done || ingestion.chunks === 0 ? "failed" : "partial";
}

const OUTCOME_LABELS: Record<Outcome, string> = { queued: "Queued", running: "Reading", succeeded: "Done", partial: "Done, with documents that failed", failed: "Failed" };

/** One ingestion's progress bar, outcome and per-document errors; a failed one shows no full bar, it says it failed. */
export function IngestionProgress({ ingestion }: { ingestion: Ingestion }) {
  // The total is null while a crawl is still finding its pages: the bar then just says "busy".
  const total = ingestion.documents_total;
  const outcome = outcomeOf(ingestion);
  const failedCount = ingestion.errors.length;
  const read = Math.max(0, ingestion.documents_done - failedCount);
  const counted =
    total === null
      ? `${plural(ingestion.documents_done, "document")} so far`
      : outcome === "failed" || outcome === "partial"
        ? `${read} of ${plural(total, "document")} read, ${failedCount} failed`
        : `${ingestion.documents_done} of ${plural(total, "document")}`;
  return (
    <li class={`ingestion ${outcome}`}>
      <p>
        <strong>
          {outcome === "failed" ? "✕ " : outcome === "succeeded" ? "✓ " : ""}
          {OUTCOME_LABELS[outcome]}
        </strong>
        : {counted}, {plural(ingestion.chunks, "chunk")}
      </p>
      {outcome === "failed" ? null : total === null ? (
        <progress aria-label="Ingestion progress" />
      ) : (
        <progress max={Math.max(total, 1)} value={outcome === "partial" ? read : ingestion.documents_done} aria-label="Ingestion progress" />
      )}
      {ingestion.errors.length > 0 ? (
        <ul class="errors" aria-label="Documents that failed">
          {ingestion.errors.map((error, index) => (
            <li key={index} role="alert">
              <strong>{error.source}</strong>: {error.detail}
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}
