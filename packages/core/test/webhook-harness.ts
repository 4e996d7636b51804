import { afterEach } from "vitest";
import type { EventType } from "../src/domain/events.js";
import type { WebhookDispatcherOptions } from "../src/webhooks/webhook-dispatcher.js";
import { setup } from "./harness.js";
import { startReceiver, type Receiver } from "./webhook-receiver.js";

const SECOND_MICROS = 1_000_000;

/** Closes every receiver a test started, after the test. */
export function receiversClosedAfterEach(): () => Promise<Receiver> {
  const started: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((receiver) => receiver.close()));
  });
  return async () => {
    const receiver = await startReceiver();
    started.push(receiver);
    return receiver;
  };
}

/**
 * The core harness plus a receiver subscribed to the user's events and a dispatcher on the
 * same in-memory storage and manual clock. The jitter is fixed at one half, so a retry waits
 * exactly half its ceiling.
 */
export async function setupWebhooks(
  receiver: Receiver,
  options: { dispatcher?: Partial<WebhookDispatcherOptions>; eventTypes?: EventType[]; startAt?: number } = {},
) {
  const context = await setup();
  if (options.startAt !== undefined) context.clock.set(options.startAt);
  const subscription = await context.parley.admin.createWebhookSubscription({
    userId: context.user.id,
    url: receiver.url,
    ...(options.eventTypes === undefined ? {} : { eventTypes: options.eventTypes }),
  });
  const dispatcher = context.parley.createWebhookDispatcher({ retry: { random: () => 0.5 }, ...options.dispatcher });
  /** One chat message from a visitor of the harness's chatbot. */
  const send = (message: string, sessionId = "visitor-1", chatbotId = context.chatbot.id) =>
    context.parley.chat(context.caller, chatbotId, { message, session_id: sessionId });
  /** Moves the manual clock to a time in microseconds, or forward by seconds. */
  const advanceSeconds = (seconds: number) => context.clock.advance(seconds * 1000);
  const deliveries = () => context.storage.listDeliveries({ limit: 1000 });
  return { ...context, subscription, dispatcher, send, advanceSeconds, deliveries, SECOND_MICROS };
}

/** The parsed JSON body of a received request. */
export const bodyOf = (request: { body: string }) => JSON.parse(request.body) as { type: string; timestamp: string; data: Record<string, unknown> };

/** The bodies of the requests by event type: attempts run concurrently, so arrival order varies. */
export const bodiesByType = (requests: readonly { body: string }[]) => requests.map(bodyOf).sort((a, b) => a.type.localeCompare(b.type));
