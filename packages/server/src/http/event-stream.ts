import type { EventFeed, OutboxEvent } from "@parley/core";
import { webhookBody } from "@parley/core";
import { bearerToken } from "./bearer-token.js";
import type { EventStreamHandler } from "./endpoint.js";

/** How often a comment line keeps an idle stream (and the proxies on its way) open. */
export const HEARTBEAT_MS = 15_000;

/** One event in the text/event-stream format: its id, its type, and the webhook body as data. */
export function formatEvent(event: OutboxEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${webhookBody(event)}\n\n`;
}

/**
 * Server-Sent Events for `GET /v1/admin/events` (docs/design.md §9): the caller's events live
 * from the shared feed, every event after `Last-Event-ID` first, a comment line every 15 s.
 * With `authenticate`, each heartbeat checks the stream's key again, so a revoked key's stream
 * ends by the next one. `closeAll` ends every open stream, for a graceful stop.
 */
export function createEventStreams(options: { feed: EventFeed; heartbeatMs?: number; authenticate?: (token: string | undefined) => Promise<unknown> }) {
  const open = new Set<() => void>();
  // The feed hands each event to every stream of its user in turn: formatted once, not once a stream.
  let last: { event: OutboxEvent; text: string } | undefined;
  const textOf = (event: OutboxEvent) => (last?.event === event ? last.text : (last = { event, text: formatEvent(event) }).text);

  const handler: EventStreamHandler = async ({ caller, request, response, headers }) => {
    const offered = request.headers["last-event-id"];
    const lastEventId = typeof offered === "string" && offered.length > 0 && offered.length <= 100 ? offered : null;
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      // nginx buffers responses unless told not to; a buffered stream is not live.
      "x-accel-buffering": "no",
      ...headers,
    });
    response.write(": connected\n\n");
    await new Promise<void>((resolve) => {
      let unsubscribe: (() => void) | undefined;
      let ended = false;
      const heartbeat = setInterval(() => {
        response.write(": keep-alive\n\n");
        options.authenticate?.(bearerToken(request.headers.authorization)).catch(end);
      }, options.heartbeatMs ?? HEARTBEAT_MS);
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        unsubscribe?.();
        open.delete(end);
        if (!response.writableEnded) response.end();
        resolve();
      };
      open.add(end);
      request.on("close", end);
      response.on("error", end);
      options.feed.subscribe(caller.user.id, lastEventId, (event) => response.write(textOf(event))).then(
        (stop) => {
          unsubscribe = stop;
          if (ended) stop();
        },
        end,
      );
    });
  };

  return {
    handler,
    /** Streams open now. */
    get size() {
      return open.size;
    },
    /** Ends every open stream (the clients reconnect elsewhere, with Last-Event-ID). */
    closeAll() {
      for (const end of [...open]) end();
    },
  };
}
