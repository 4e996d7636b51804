import { isVisitorEvent, type EventFeed, type OutboxEvent } from "@parley/core";
import type { VisitorEventStreamHandler } from "./endpoint.js";
import { followUntilClosed, formatEvent, HEARTBEAT_MS, lastEventIdOf, writeEventStreamHead } from "./event-stream.js";
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
    const lastEventId = lastEventIdOf(request);
    bySession.set(sessionKey, count + 1);
    writeEventStreamHead(response, headers);
    const listener = (event: OutboxEvent) => {
      if (isVisitorEvent(event, chatbotId, sessionId)) response.write(formatEvent(event));
    };
    await followUntilClosed(request, response, {
      heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
      subscribe: () => options.feed.subscribe(ownerId, lastEventId, listener),
      track: (end) => open.add(end),
      untrack: (end) => {
        open.delete(end);
        const left = (bySession.get(sessionKey) ?? 1) - 1;
        if (left <= 0) bySession.delete(sessionKey);
        else bySession.set(sessionKey, left);
      },
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
