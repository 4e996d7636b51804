import type { Database } from "better-sqlite3";
import { DELIVERY_COLUMNS, OUTBOX_COLUMNS, SUBSCRIPTION_COLUMNS, type OutboxEventRow, type WebhookDeliveryRow, type WebhookSubscriptionRow } from "@parley/core/storage-rows";
import { typedPrepare } from "./sqlite-storage-statements.js";

// The statements of webhook subscriptions and deliveries (migration 003); their rows map through
// the codec both SQL adapters share (@parley/core/storage-rows).

/** The parameters of the delivery lists. */
interface ListDeliveries {
  status: string | null;
  user_id: string | null;
  before_seq: number | null;
  limit: number;
}

/** A delivery row with the lease the domain type does not show. */
export type LeasedDeliveryRow = WebhookDeliveryRow & { leased_until: number | null };

/** Every statement of the webhook steps, prepared once per adapter. */
export type WebhookStatements = ReturnType<typeof prepareWebhookStatements>;

/** Prepares the webhook statements on a migrated database. */
export function prepareWebhookStatements(database: Database) {
  const prepare = typedPrepare(database);
  return {
    insertSubscription: prepare<WebhookSubscriptionRow>(
      `INSERT INTO webhook_subscriptions (${SUBSCRIPTION_COLUMNS})
       VALUES (@id, @user_id, @url, @chatbot_id, @event_types, @signing_key_id, @public_only, @created_at)`,
    ),
    getSubscription: prepare<[string], WebhookSubscriptionRow>(`SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ?`),
    listSubscriptions: prepare<[string], WebhookSubscriptionRow>(
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE user_id = ? ORDER BY created_at, seq`,
    ),
    deleteSubscription: prepare<[string]>("DELETE FROM webhook_subscriptions WHERE id = ?"),
    failPendingOfSubscription: prepare<[string]>(
      `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, leased_until = NULL, last_error = 'subscription removed'
       WHERE subscription_id = ? AND status = 'pending'`,
    ),

    undispatchedEvents: prepare<[number], OutboxEventRow & { seq: number }>(
      `SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE dispatched_at IS NULL ORDER BY seq LIMIT CAST(? AS INTEGER)`,
    ),
    // The user's subscriptions from before the event, narrowed by chatbot and event type.
    matchingSubscriptions: prepare<{ user_id: string; chatbot_id: string; type: string; created_at: number }, { id: string }>(
      `SELECT id FROM webhook_subscriptions
       WHERE user_id = @user_id AND created_at <= @created_at
         AND (chatbot_id IS NULL OR chatbot_id = @chatbot_id)
         AND (json_array_length(event_types) = 0 OR EXISTS (SELECT 1 FROM json_each(event_types) WHERE value = @type))
       ORDER BY created_at, seq`,
    ),
    insertDelivery: prepare<{ id: string; subscription_id: string; event_id: string; event_type: string; at: number }>(
      `INSERT INTO webhook_deliveries (id, subscription_id, user_id, event_id, event_type, status, attempts, next_attempt_at, created_at)
       VALUES (@id, @subscription_id, (SELECT user_id FROM webhook_subscriptions WHERE id = @subscription_id), @event_id, @event_type, 'pending', 0, @at, @at)`,
    ),
    markDispatched: prepare<[number, number]>("UPDATE outbox_events SET dispatched_at = ? WHERE seq = ?"),

    // Due deliveries, most overdue first, at most @per_subscription of each subscription.
    // INDEXED BY: without statistics the planner prefers the status index, which would read
    // every pending delivery, also those backing off for hours, instead of only the due ones.
    dueDeliveries: prepare<{ now: number; skip: string; per_subscription: number; limit: number }, { seq: number }>(
      `WITH due AS (
         SELECT seq, next_attempt_at,
                row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, seq) AS place
         FROM webhook_deliveries INDEXED BY webhook_deliveries_due
         WHERE status = 'pending' AND next_attempt_at <= @now
           AND subscription_id NOT IN (SELECT value FROM json_each(@skip))
       )
       SELECT seq FROM due WHERE place <= @per_subscription ORDER BY next_attempt_at, seq LIMIT CAST(@limit AS INTEGER)`,
    ),
    leaseDelivery: prepare<[number, number, number], WebhookDeliveryRow>(
      `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = ?, leased_until = ? WHERE seq = ?
       RETURNING ${DELIVERY_COLUMNS}`,
    ),
    getEvent: prepare<[string], OutboxEventRow>(`SELECT ${OUTBOX_COLUMNS} FROM outbox_events WHERE id = ?`),

    // Applies only to the attempt still current: a late outcome of an expired lease changes nothing.
    recordAttempt: prepare<
      { id: string; attempt: number; status: string; next_attempt_at: number | null; at: number; response_status: number | null; error: string | null; delivered_at: number | null },
      WebhookDeliveryRow
    >(
      `UPDATE webhook_deliveries SET status = @status, next_attempt_at = @next_attempt_at, leased_until = NULL,
         last_attempt_at = @at, last_response_status = @response_status, last_error = @error, delivered_at = @delivered_at
       WHERE id = @id AND status = 'pending' AND attempts = @attempt AND leased_until IS NOT NULL
       RETURNING ${DELIVERY_COLUMNS}`,
    ),
    // Newest first, each through its index; a NULL @status or @before_seq lets every row through.
    listDeliveries: prepare<ListDeliveries, WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE seq < coalesce(@before_seq, 9223372036854775807) ORDER BY seq DESC LIMIT CAST(@limit AS INTEGER)`,
    ),
    listDeliveriesByStatus: prepare<ListDeliveries, WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE status = @status AND seq < coalesce(@before_seq, 9223372036854775807)
       ORDER BY seq DESC LIMIT CAST(@limit AS INTEGER)`,
    ),
    listUserDeliveries: prepare<ListDeliveries, WebhookDeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries INDEXED BY webhook_deliveries_by_user
       WHERE user_id = @user_id AND seq < coalesce(@before_seq, 9223372036854775807) AND (@status IS NULL OR status = @status)
       ORDER BY seq DESC LIMIT CAST(@limit AS INTEGER)`,
    ),
    seqOfDelivery: prepare<[string], { seq: number }>("SELECT seq FROM webhook_deliveries WHERE id = ?"),
    getDelivery: prepare<[string], LeasedDeliveryRow>(`SELECT ${DELIVERY_COLUMNS}, leased_until FROM webhook_deliveries WHERE id = ?`),
    restartDelivery: prepare<[number, string], WebhookDeliveryRow>(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, leased_until = NULL, delivered_at = NULL
       WHERE id = ? RETURNING ${DELIVERY_COLUMNS}`,
    ),
    bringForward: prepare<[number, string], WebhookDeliveryRow>(
      `UPDATE webhook_deliveries SET next_attempt_at = min(next_attempt_at, ?), leased_until = NULL
       WHERE id = ? RETURNING ${DELIVERY_COLUMNS}`,
    ),
  };
}
