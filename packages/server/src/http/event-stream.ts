import type { EventFeed, OutboxEvent } from "@parley/core";
import type { IncomingMessage, ServerResponse } from "node:http";
import { webhookBody } from "@parley/core";
import { bearerToken } from "./bearer-token.js";
import type { EventStreamHandler } from "./endpoint.js";
import { HttpError } from "./http-error.js";

/** How often a comment line keeps an idle stream (and the proxies on its way) open. */
export const HEARTBEAT_MS = 15_000;
/** Event streams one API key may hold open at once in one process, by default (`PARLEY_MAX_STREAMS_PER_KEY`). */
export const DEFAULT_MAX_STREAMS_PER_KEY = 5;
/** How often the keys of open streams are checked again, for revocations made by another process. */
export const KEY_RECHECK_MS = 1_000;

/** One event in the text/event-stream format: its id, its type, and the webhook body as data. */
export function formatEvent(event: OutboxEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${webhookBody(event)}\n\n`;
}

/** The Last-Event-ID a client offers to resume after (at most 100 characters), or null. */
export function lastEventIdOf(request: IncomingMessage): string | null {
  const offered = request.headers["last-event-id"];
  return typeof offered === "string" && offered.length > 0 && offered.length <= 100 ? offered : null;
}

/** Starts a text/event-stream answer with the headers every stream of this server carries. */
export function writeEventStreamHead(response: ServerResponse, headers: Record<string, string>): void {
  response.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-store",
    connection: "keep-alive",
    // nginx buffers responses unless told not to; a buffered stream is not live.
    "x-accel-buffering": "no",
    ...headers,
  });
}

/**
 * Follows a feed on an open stream until the client goes away or `end` is called: a comment
 * every `heartbeatMs`, the subscription stopped at the end (also when it arrives after it).
 * `track` receives the stream's `end` when it opens, `untrack` when it ends; resolves once ended.
 */
export function followUntilClosed(
  request: IncomingMessage,
  response: ServerResponse,
  options: { heartbeatMs: number; subscribe: () => Promise<() => void>; track: (end: () => void) => void; untrack: (end: () => void) => void },
): Promise<void> {
  response.write(": connected\n\n");
  return new Promise<void>((resolve) => {
    let unsubscribe: (() => void) | undefined;
    let ended = false;
    const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), options.heartbeatMs);
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      unsubscribe?.();
      options.untrack(end);
      if (!response.writableEnded) response.end();
      resolve();
    };
    options.track(end);
    request.on("close", end);
    response.on("error", end);
    options.subscribe().then((stop) => {
      unsubscribe = stop;
      if (ended) stop();
    }, end);
  });
}

/** The detail of the 429 for one stream too many. */
export function tooManyStreamsDetail(maxPerKey: number): string {
  return `Too many event streams open for this API key: at most ${maxPerKey} at once. Close one before opening another.`;
}

/**
 * Server-Sent Events for `GET /v1/admin/events` (docs/design.md §9): the caller's events live
 * from the shared feed, every event after `Last-Event-ID` first, a comment line every 15 s.
 * One key holds at most `maxPerKey` streams (429 past that), so one tenant cannot take every
 * connection. A key revoked in this process ends its streams at once (`endKey`); with
 * `authenticate`, the keys of open streams are checked again every second (once per key, not
 * per stream), so a revocation made by another process ends them within a second.
 * `closeAll` ends every open stream, for a graceful stop.
 */
export function createEventStreams(options: {
  feed: EventFeed;
  heartbeatMs?: number;
  maxPerKey?: number;
  recheckMs?: number;
  authenticate?: (token: string | undefined) => Promise<unknown>;
}) {
  const maxPerKey = options.maxPerKey ?? DEFAULT_MAX_STREAMS_PER_KEY;
  const open = new Set<() => void>();
  const byKey = new Map<string, { token: string | undefined; ends: Set<() => void> }>();
  // The feed hands each event to every stream of its user in turn: formatted once, not once a stream.
  let last: { event: OutboxEvent; text: string } | undefined;
  const textOf = (event: OutboxEvent) => (last?.event === event ? last.text : (last = { event, text: formatEvent(event) }).text);

  const endKey = (keyId: string) => {
    for (const end of [...(byKey.get(keyId)?.ends ?? [])]) end();
  };
  let recheck: ReturnType<typeof setInterval> | undefined;
  const startRecheck = () => {
    if (recheck !== undefined || !options.authenticate) return;
    recheck = setInterval(() => {
      if (byKey.size === 0) {
        clearInterval(recheck);
        recheck = undefined;
        return;
      }
      for (const [keyId, { token }] of byKey) options.authenticate!(token).catch(() => endKey(keyId));
    }, options.recheckMs ?? KEY_RECHECK_MS);
    recheck.unref?.();
  };

  const handler: EventStreamHandler = async ({ caller, request, response, headers }) => {
    const keyId = caller.apiKey.id;
    const entry = byKey.get(keyId) ?? { token: bearerToken(request.headers.authorization), ends: new Set<() => void>() };
    if (entry.ends.size >= maxPerKey) throw new HttpError(429, tooManyStreamsDetail(maxPerKey));
    const lastEventId = lastEventIdOf(request);
    writeEventStreamHead(response, headers);
    await followUntilClosed(request, response, {
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      subscribe: () => options.feed.subscribe(caller.user.id, lastEventId, (event) => response.write(textOf(event))),
      track: (end) => {
        open.add(end);
        entry.ends.add(end);
        byKey.set(keyId, entry);
        startRecheck();
      },
      untrack: (end) => {
        open.delete(end);
        entry.ends.delete(end);
        if (entry.ends.size === 0 && byKey.get(keyId) === entry) byKey.delete(keyId);
      },
    });
  };

  return {
    handler,
    /** Streams open now. */
    get size() {
      return open.size;
    },
    /** Ends the open streams of a key (it was revoked). */
    endKey,
    /** Ends every open stream (the clients reconnect elsewhere, with Last-Event-ID). */
    closeAll() {
      for (const end of [...open]) end();
      clearInterval(recheck);
      recheck = undefined;
    },
  };
}
