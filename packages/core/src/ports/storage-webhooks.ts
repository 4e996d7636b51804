// Inputs of the Storage port's webhook delivery steps (storage.ts), kept apart so the port
// file stays readable.

/** Everything {@link Storage.fanOutOutboxEvents} needs. */
export interface FanOutOutboxEvents {
  /** At most this many events in one step. */
  limit: number;
  /** Creation time of the deliveries, and when they are first due. */
  at: number;
  /** A new delivery id (it becomes `webhook-id`); called once per delivery created. */
  newId: () => string;
}

/** Everything {@link Storage.claimDueDeliveries} needs. */
export interface ClaimDueDeliveries {
  now: number;
  /** At most this many deliveries in all. */
  limit: number;
  /** At most this many of one subscription, so one receiver's backlog cannot fill a claim. */
  perSubscriptionLimit: number;
  /** Subscriptions to leave out, e.g. those whose receiver is already busy with this caller. */
  skipSubscriptionIds: readonly string[];
  /** The claimed deliveries are not due again before this time (the lease of the attempt). */
  leaseUntil: number;
}

/** The outcome of one attempt, for {@link Storage.recordDeliveryAttempt}. */
export type DeliveryAttempt = {
  /** The delivery. */
  id: string;
  /** The `attempts` count its claim returned: identifies the attempt. */
  attempt: number;
  /** When the attempt ended. */
  at: number;
  /** HTTP status of the answer; null when there was none. */
  responseStatus: number | null;
  /** A short summary of the failure without secrets; null when delivered. */
  error: string | null;
} & (
  | { outcome: "delivered" }
  | { outcome: "retry"; nextAttemptAt: number }
  | { outcome: "failed" }
);
