import type { EventType, OutboxEvent } from "./events.js";

/** A user's subscription to events, optionally narrowed to one chatbot and some event types. */
export interface WebhookSubscription {
  id: string;
  userId: string;
  url: string;
  /** Only this chatbot's events, when set. */
  chatbotId: string | null;
  /** Only these event types; empty means every type. */
  eventTypes: EventType[];
  /**
   * Fingerprint of the master key the signing secret is derived from (never the key or the
   * secret). The secret itself is not stored: see `WebhookSecrets`. A dispatcher holding
   * another key refuses to sign rather than send signatures the receiver would reject.
   */
  signingKeyId: string;
  /**
   * Made through the operator API: delivered only to public addresses, checked again at each
   * attempt after DNS (docs/design.md §9). Subscriptions of the CLI, which the server's own
   * operator runs, are not restricted.
   */
  publicOnly: boolean;
  createdAt: number;
}

/** A subscription as created: with its signing secret, `whsec_<base64>`, shown this once. */
export type NewWebhookSubscription = WebhookSubscription & { secret: string };

/** Where a delivery stands. */
export type DeliveryStatus = "pending" | "delivered" | "failed";

/** The statuses, for validation. */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ["pending", "delivered", "failed"];

/** One event on its way to one subscription. Kept after delivery or failure, as history. */
export interface WebhookDelivery {
  /** Sent as `webhook-id`, the same on every attempt: receivers de-duplicate on it. */
  id: string;
  subscriptionId: string;
  /** The subscription's user, who alone may see or retry the delivery. */
  userId: string;
  eventId: string;
  eventType: EventType;
  status: DeliveryStatus;
  /** Attempts started; an attempt cut short by a crash counts too. */
  attempts: number;
  /** When a pending delivery is next due (while an attempt is in flight: when its lease ends); null otherwise. */
  nextAttemptAt: number | null;
  lastAttemptAt: number | null;
  /** HTTP status of the last answer; null when there was none (timeout, refused connection). */
  lastResponseStatus: number | null;
  /** Why the last attempt failed, in a few words: never a secret, a URL or the receiver's body. */
  lastError: string | null;
  createdAt: number;
  deliveredAt: number | null;
}

/** A delivery leased for one attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  delivery: WebhookDelivery;
  event: OutboxEvent;
  subscription: WebhookSubscription;
}
