import { signal } from "@preact/signals";
import { signOut } from "../session/session.js";
import { authorization } from "./client.js";
import { createSseParser } from "@parley/sse-parser";
import type { EventBody, ParleyEvent } from "./types.js";

/**
 * How the console hears about changes: the SSE stream, or polling while the stream fails; or
 * nothing while the server cannot be reached at all (`reconnecting`: polls would fail too).
 */
export type LiveMode = "off" | "connecting" | "live" | "polling" | "reconnecting";

/** The current mode, shown in the header. */
export const liveMode = signal<LiveMode>("off");

/** Called with each event, or with null when the screen should simply fetch again (a poll tick). */
export type LiveListener = (event: ParleyEvent | null) => void;

const listeners = new Set<LiveListener>();

/** Subscribes to live changes; returns the unsubscribe function. */
export function onLiveChange(listener: LiveListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function emit(event: ParleyEvent | null): void {
  for (const listener of listeners) listener(event);
}

// After this many failed connections in a row the console polls instead, and tries the
// stream again after POLL_ROUNDS polls (docs/design.md §11: "falling back to polling").
const FAILURES_BEFORE_POLLING = 3;
const POLL_INTERVAL_MS = 2_000;
const POLL_ROUNDS = 15;
// While the server cannot be reached at all, the stream is tried again at most this far apart.
const RECONNECT_MAX_MS = 5_000;

const delay = (ms: number, abort: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    abort.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Reads `GET /v1/admin/events` with fetch, since EventSource cannot send an Authorization
 * header and the key must never travel in a URL (docs/design.md §9). Reconnects with
 * `Last-Event-ID`, so no event is missed across a dropped connection. Returns the stop function.
 */
export function startLiveEvents(key: string): () => void {
  const controller = new AbortController();
  void run(key, controller.signal);
  return () => {
    controller.abort();
    liveMode.value = "off";
  };
}

async function run(key: string, abort: AbortSignal): Promise<void> {
  const position: { lastEventId?: string } = {};
  let failures = 0;
  // Whether the last connection failed for want of the server (fetch's TypeError), not by an answer.
  let unreachable = false;
  while (!abort.aborted) {
    if (liveMode.value !== "polling" && liveMode.value !== "reconnecting") liveMode.value = "connecting";
    try {
      const wasPolling = liveMode.value === "polling" || liveMode.value === "reconnecting";
      await readStream(key, position, abort, () => {
        failures = 0;
        unreachable = false;
        liveMode.value = "live";
        // A stream without Last-Event-ID starts at "now": whatever happened between the screen's
        // first fetch (or the last poll) and this moment is fetched once, or it would be missed.
        if (wasPolling || position.lastEventId === undefined) emit(null);
      });
    } catch (error) {
      if (abort.aborted) return;
      if (error instanceof SignedOut) return;
      failures += 1;
      unreachable = error instanceof TypeError;
      if (unreachable) liveMode.value = "reconnecting";
    }
    if (unreachable) {
      // Polls would fail as well: try the stream again soon, so the console is live again
      // within seconds of the server's return.
      await delay(Math.min(250 * 2 ** failures, RECONNECT_MAX_MS), abort);
    } else if (failures >= FAILURES_BEFORE_POLLING) {
      liveMode.value = "polling";
      for (let round = 0; round < POLL_ROUNDS && !abort.aborted; round += 1) {
        emit(null);
        await delay(POLL_INTERVAL_MS, abort);
      }
    } else {
      await delay(250 * 2 ** failures, abort);
    }
  }
}

class SignedOut extends Error {}

/** One connection, read to its end; `position` keeps the id of the last event received. */
async function readStream(key: string, position: { lastEventId?: string }, abort: AbortSignal, opened: () => void): Promise<void> {
  const headers: Record<string, string> = { accept: "text/event-stream", ...authorization(key) };
  if (position.lastEventId !== undefined) headers["last-event-id"] = position.lastEventId;
  const response = await fetch("/v1/admin/events", { headers, signal: abort, cache: "no-store" });
  if (response.status === 401) {
    signOut("Invalid or missing API key.");
    throw new SignedOut();
  }
  if (!response.ok || !response.body || !(response.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
    throw new Error(`The event stream answered ${response.status}.`);
  }
  opened();
  const parser = createSseParser();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const event of parser.feed(value)) {
      if (event.id !== undefined) position.lastEventId = event.id;
      const parsed = parseEvent(event.id, event.data);
      if (parsed) emit(parsed);
    }
  }
}

/** An event of the stream, or null for a line that is not one (the server writes every `data:` line as an EventBody). */
function parseEvent(id: string | undefined, data: string): ParleyEvent | null {
  try {
    const body = JSON.parse(data) as Partial<EventBody> | null;
    if (typeof body?.type !== "string" || typeof body.data !== "object" || body.data === null) return null;
    return { id: id ?? "", type: body.type, data: body.data } as ParleyEvent;
  } catch {
    return null;
  }
}
