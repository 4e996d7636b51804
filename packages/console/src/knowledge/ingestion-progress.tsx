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

const STATUS_LABELS = { queued: "Queued", running: "Reading", succeeded: "Done", failed: "Failed" } as const;

/** One ingestion's progress bar, outcome and per-document errors. */
export function IngestionProgress({ ingestion }: { ingestion: Ingestion }) {
  // The total is null while a crawl is still finding its pages: the bar then just says "busy".
  const total = ingestion.documents_total;
  const counted = total === null ? `${plural(ingestion.documents_done, "document")} so far` : `${ingestion.documents_done} of ${plural(total, "document")}`;
  return (
    <li class={`ingestion ${ingestion.status}`}>
      <p>
        <strong>{STATUS_LABELS[ingestion.status]}</strong>: {counted}, {plural(ingestion.chunks, "chunk")}
      </p>
      {total === null ? (
        <progress aria-label="Ingestion progress" />
      ) : (
        <progress max={Math.max(total, 1)} value={ingestion.documents_done} aria-label="Ingestion progress" />
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
