import { isVisitorEvent, type EventFeed, type OutboxEvent } from "@parley/core";
import type { VisitorEventStreamHandler } from "./endpoint.js";
import { formatEvent, HEARTBEAT_MS } from "./event-stream.js";
import { HttpError } from "./http-error.js";

/** Event streams one visitor session may hold open at once in one process (several tabs). */
export const MAX_STREAMS_PER_SESSION = 5;

/** The detail of the 429 for one visitor stream too many. */
export function tooManyVisitorStreamsDetail(max: number): string {
  return `Too many event streams open for this visitor session: at most ${max} at once. Close one before opening another.`;
}

/**
 * Server-Sent Events of one widget session (docs/design.md §14): from the owner's shared feed,
 * only this chatbot's and this session's `message.sent`, `conversation.takeover_started` and
 * `conversation.takeover_ended`, in the admin stream's format (`id`, `event`, `data` = the
 * webhook body); `Last-Event-ID` resumes from the outbox; a comment every 15 s.
 */
export function createVisitorEventStreams(options: { feed: EventFeed; heartbeatMs?: number; maxPerSession?: number }) {
  const max = options.maxPerSession ?? MAX_STREAMS_PER_SESSION;
  const open = new Set<() => void>();
  const bySession = new Map<string, number>();

  const handler: VisitorEventStreamHandler = async ({ visitor, ownerId, request, response, headers }) => {
    const chatbotId = visitor.widget.chatbot.id;
    const { sessionId } = visitor;
    const sessionKey = `${chatbotId}\u0000${sessionId}`;
    const count = bySession.get(sessionKey) ?? 0;
    if (count >= max) throw new HttpError(429, tooManyVisitorStreamsDetail(max));
    const offered = request.headers["last-event-id"];
    const lastEventId = typeof offered === "string" && offered.length > 0 && offered.length <= 100 ? offered : null;
    bySession.set(sessionKey, count + 1);
    response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...headers,
    });
    response.write(": connected\n\n");
    await new Promise<void>((resolve) => {
      let unsubscribe: (() => void) | undefined;
      let ended = false;
      const heartbeat = setInterval(() => response.write(": keep-alive\n\n"), options.heartbeatMs ?? HEARTBEAT_MS);
      const end = () => {
        if (ended) return;
        ended = true;
        clearInterval(heartbeat);
        unsubscribe?.();
        open.delete(end);
        const left = (bySession.get(sessionKey) ?? 1) - 1;
        if (left <= 0) bySession.delete(sessionKey);
        else bySession.set(sessionKey, left);
        if (!response.writableEnded) response.end();
        resolve();
      };
      open.add(end);
      request.on("close", end);
      response.on("error", end);
      const listener = (event: OutboxEvent) => {
        if (isVisitorEvent(event, chatbotId, sessionId)) response.write(formatEvent(event));
      };
      options.feed.subscribe(ownerId, lastEventId, listener).then(
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
    /** Ends every open stream (the visitors reconnect, with Last-Event-ID). */
    closeAll() {
      for (const end of [...open]) end();
    },
  };
}
