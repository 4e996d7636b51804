import type { OutboxEvent } from "../domain/events.js";
import type { EventBus } from "./event-bus.js";
import type { Storage } from "../ports/storage.js";

/** A live subscriber's handler: called once per event, in outbox order. */
export type FeedListener = (event: OutboxEvent) => void;

/** Live events from the outbox, for streams such as the operator API's SSE route. */
export interface EventFeed {
  /**
   * Sends the user's events to `listener` as they are written, first every event after
   * `lastEventId` when it names a known event (a reconnecting client's `Last-Event-ID`).
   * Resolves to the function that ends the subscription.
   */
  subscribe(userId: string, lastEventId: string | null, listener: FeedListener): Promise<() => void>;
  /** Subscribers now. */
  readonly size: number;
  /** Stops reading; subscribers get nothing more. */
  close(): void;
}

interface Subscriber {
  userId: string;
  listener: FeedListener;
  /** Position of the last event sent. */
  position: number;
  /** Live events held back while the subscriber catches up from the outbox. */
  held: { position: number; event: OutboxEvent }[] | null;
}

const PAGE = 500;

/**
 * One reader of the shared outbox for every subscriber of the process: it reads new events
 * once (on a timer, and at once when this process writes one) and fans them out in memory, so
 * a thousand open streams cost one query per read, not one each. Events written by other
 * processes on the same database arrive with the next read.
 */
export function createEventFeed(options: { storage: Storage; events?: EventBus; pollMs?: number }): EventFeed {
  const { storage } = options;
  const subscribers = new Set<Subscriber>();
  let position: number | null = null;
  let timer: ReturnType<typeof setInterval> | undefined;
  let reading: Promise<void> | null = null;
  let again = false;
  let closed = false;

  const deliver = (subscriber: Subscriber, entry: { position: number; event: OutboxEvent }) => {
    if (entry.position <= subscriber.position) return;
    subscriber.position = entry.position;
    try {
      subscriber.listener(entry.event);
    } catch {
      // A listener's fault (a closed socket) must not stop the others.
    }
  };
  const readNew = async () => {
    position ??= await storage.latestOutboxPosition();
    for (;;) {
      const entries = await storage.readOutbox({ afterPosition: position, limit: PAGE });
      for (const entry of entries) {
        position = entry.position;
        for (const subscriber of subscribers) {
          if (subscriber.userId !== entry.event.userId) continue;
          if (subscriber.held) subscriber.held.push(entry);
          else deliver(subscriber, entry);
        }
      }
      if (entries.length < PAGE) return;
    }
  };
  /** Reads now; a request during a read makes one more read follow it, never two at once. */
  const read = (): Promise<void> => {
    if (closed) return Promise.resolve();
    if (reading) {
      again = true;
      return reading;
    }
    reading = readNew()
      .catch(() => undefined) // a failed read is retried on the next tick
      .finally(() => {
        reading = null;
        if (again) {
          again = false;
          void read();
        }
      });
    return reading;
  };
  const onLocalEvent = () => void read();

  const start = () => {
    if (timer !== undefined) return;
    timer = setInterval(() => void read(), options.pollMs ?? 250);
    timer.unref?.();
    options.events?.on("*", onLocalEvent);
  };
  const stop = () => {
    clearInterval(timer);
    timer = undefined;
    position = null; // an idle feed starts again from the newest event
    options.events?.off("*", onLocalEvent);
  };

  return {
    async subscribe(userId, lastEventId, listener) {
      start();
      await read(); // the reader's position is known and current
      const resumeFrom = lastEventId === null ? null : await storage.outboxPosition(lastEventId);
      const subscriber: Subscriber = { userId, listener, position: resumeFrom ?? position!, held: resumeFrom === null ? null : [] };
      subscribers.add(subscriber);
      // Catch up from the outbox; live events arriving meanwhile are held, then sent in order.
      while (subscriber.held) {
        const entries = await storage.readOutbox({ afterPosition: subscriber.position, limit: PAGE, userId });
        for (const entry of entries) deliver(subscriber, entry);
        if (entries.length < PAGE) {
          const held = subscriber.held;
          subscriber.held = null;
          for (const entry of held) deliver(subscriber, entry);
        }
      }
      return () => {
        subscribers.delete(subscriber);
        if (subscribers.size === 0) stop();
      };
    },
    get size() {
      return subscribers.size;
    },
    close() {
      closed = true;
      subscribers.clear();
      stop();
    },
  };
}
