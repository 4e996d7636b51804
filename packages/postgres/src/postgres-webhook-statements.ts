import { DELIVERY_COLUMNS, OUTBOX_COLUMNS, SUBSCRIPTION_COLUMNS } from "@parley/core/storage-rows";
import { preparedStatements } from "./postgres-prepared.js";

// The SQL of webhook subscriptions and deliveries on PostgreSQL; every value is a parameter.

/**
 * Whether subscription `s` wants the outbox event `event` (an alias): the event's user's, made
 * before the event, for its chatbot or every one, for its type or every one. One text for both
 * fan-out statements, so that what one marks unwanted the other would not have delivered.
 */
const wants = (event: string) => `s.user_id = ${event}.user_id AND s.created_at <= ${event}.created_at
        AND (s.chatbot_id IS NULL OR s.chatbot_id = ${event}.chatbot_id) AND (s.event_types = '[]' OR s.event_types::jsonb ? ${event}.type)`;

export const WEBHOOK_SQL = preparedStatements("webhook", {
  insertSubscription: `INSERT INTO webhook_subscriptions (${SUBSCRIPTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  getSubscription: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = $1`,
  listSubscriptions: `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE user_id = $1 ORDER BY created_at, seq`,
  deleteSubscription: "DELETE FROM webhook_subscriptions WHERE id = $1",
  failPendingOfSubscription: `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, leased_until = NULL, last_error = 'subscription removed'
    WHERE subscription_id = $1 AND status = 'pending'`,

  // SKIP LOCKED: two dispatchers fanning out at once take different events, never the same one.
  undispatchedEvents: `SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
  insertDelivery: `INSERT INTO webhook_deliveries (id, subscription_id, user_id, event_id, event_type, status, attempts, next_attempt_at, created_at)
    VALUES ($1, $2, (SELECT user_id FROM webhook_subscriptions WHERE id = $2), $3, $4, 'pending', 0, $5, $5)
    ON CONFLICT (event_id, subscription_id) DO NOTHING`,
  // Marks one event dispatched and returns the subscriptions it goes to: its user's, from before
  // the event, narrowed by chatbot and event type, oldest first. One statement an event.
  dispatchEvent: `UPDATE outbox_events AS e SET dispatched_at = $1 WHERE seq = $2
    RETURNING ARRAY(
      SELECT s.id FROM webhook_subscriptions AS s WHERE ${wants("e")} ORDER BY s.created_at, s.seq
    ) AS subscriptions`,

  // The waiting events no subscription wants, marked dispatched in one statement outside a
  // transaction, since they have no deliveries to write with their mark: the oldest $1 waiting
  // (SKIP LOCKED, as undispatchedEvents), of which those without a matching subscription (`wants`,
  // as dispatchEvent matches them, from the same snapshot) are marked. The others stay waiting for
  // the fan-out's transaction. `picked` counts the events taken, `marked` those marked.
  dispatchUnwantedEvents: `WITH picked AS (
      SELECT seq, user_id, chatbot_id, type, created_at FROM outbox_events WHERE dispatched_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED
    ), unwanted AS (
      SELECT p.seq FROM picked AS p WHERE NOT EXISTS (SELECT 1 FROM webhook_subscriptions AS s WHERE ${wants("p")})
    ), marked AS (
      UPDATE outbox_events SET dispatched_at = $2 WHERE seq = ANY (ARRAY(SELECT seq FROM unwanted)) AND dispatched_at IS NULL RETURNING seq
    )
    SELECT (SELECT count(*) FROM picked)::int AS picked, (SELECT count(*) FROM marked)::int AS marked`,

  // Due deliveries, most overdue first, at most $3 of each subscription, leaving out those a
  // claim already tried ($5): the candidates of one round of a claim.
  dueDeliveries: `WITH due AS (
      SELECT seq, subscription_id, next_attempt_at, row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, seq) AS place
      FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= $1 AND NOT (subscription_id = ANY($2::text[])) AND NOT (seq = ANY($5::bigint[]))
    )
    SELECT seq, subscription_id FROM due WHERE place <= $3 ORDER BY next_attempt_at, seq LIMIT $4`,
  // The lease: each candidate still due and not locked by another claim is taken, its attempt
  // counted and its due time moved to the end of the lease. FOR UPDATE re-checks a row that
  // another claim changed meanwhile, so no attempt is ever claimed twice; SKIP LOCKED lets two
  // dispatchers claim side by side instead of waiting on each other.
  leaseDeliveries: `UPDATE webhook_deliveries SET attempts = attempts + 1, next_attempt_at = $3, leased_until = $3
    WHERE seq IN (
      SELECT seq FROM webhook_deliveries WHERE seq = ANY($1::bigint[]) AND status = 'pending' AND next_attempt_at <= $2
      FOR UPDATE SKIP LOCKED
    )
    RETURNING seq, ${DELIVERY_COLUMNS}`,
  getEvent: `SELECT ${OUTBOX_COLUMNS} FROM outbox_events WHERE id = $1`,

  // Applies only to the attempt still current: a late outcome of an expired lease changes nothing.
  recordAttempt: `UPDATE webhook_deliveries SET status = $3, next_attempt_at = $4, leased_until = NULL,
      last_attempt_at = $5, last_response_status = $6, last_error = $7, delivered_at = $8
    WHERE id = $1 AND status = 'pending' AND attempts = $2 AND leased_until IS NOT NULL
    RETURNING ${DELIVERY_COLUMNS}`,
  // Newest first; a NULL status, user or position lets every row through.
  listDeliveries: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
    WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR user_id = $2) AND ($3::bigint IS NULL OR seq < $3)
    ORDER BY seq DESC LIMIT $4`,
  seqOfDelivery: "SELECT seq FROM webhook_deliveries WHERE id = $1",
  getDelivery: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1`,
  lockDelivery: `SELECT ${DELIVERY_COLUMNS}, leased_until FROM webhook_deliveries WHERE id = $1 FOR UPDATE`,
  restartDelivery: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $1, leased_until = NULL, delivered_at = NULL
    WHERE id = $2 RETURNING ${DELIVERY_COLUMNS}`,
  bringForward: `UPDATE webhook_deliveries SET next_attempt_at = least(next_attempt_at, $1), leased_until = NULL
    WHERE id = $2 RETURNING ${DELIVERY_COLUMNS}`,
});
