import { deliveryStateAfter, type ClaimDueDeliveries, type ClaimedDelivery, type WebhookStorage } from "@parley/core";
import type pg from "pg";
import { inTransaction } from "./postgres-transaction.js";
import {
  columnValues,
  outboxEventFromRow,
  SUBSCRIPTION_COLUMNS,
  webhookDeliveryFromRow,
  webhookSubscriptionFromRow,
  type OutboxEventRow,
  type WebhookDeliveryRow,
  type WebhookSubscriptionRow,
} from "@parley/core/storage-rows";
import { postgresRows } from "./postgres-storage-rows.js";
import { WEBHOOK_SQL as SQL } from "./postgres-webhook-statements.js";

type LeasedRow = WebhookDeliveryRow & { seq: number };

/** Runs steps one at a time, in the order they were asked for. */
function createTurns() {
  let last: Promise<unknown> = Promise.resolve();
  return <Result>(step: () => Promise<Result>): Promise<Result> => {
    const run = last.then(step, step);
    last = run.catch(() => {});
    return run;
  };
}

/** Rounds of a claim at most: each round retries past deliveries another claim holds locked. */
const CLAIM_ROUNDS = 8;

/**
 * Leases up to `limit` due deliveries, most overdue first, at most `perSubscriptionLimit` of
 * each subscription. A candidate another claim has locked is skipped (SKIP LOCKED) and the next
 * round looks past it, so two dispatchers claiming at once each get their share.
 */
async function leaseDue(client: pg.PoolClient, input: ClaimDueDeliveries): Promise<LeasedRow[]> {
  const { now, limit, perSubscriptionLimit, skipSubscriptionIds, leaseUntil } = input;
  const leased: LeasedRow[] = [];
  const tried: number[] = [];
  const perSubscription = new Map<string, number>();
  for (let round = 0; round < CLAIM_ROUNDS && leased.length < limit; round += 1) {
    const wanted = limit - leased.length;
    const offered = (await client.query<{ seq: number; subscription_id: string }>(SQL.dueDeliveries, [now, [...skipSubscriptionIds], perSubscriptionLimit, wanted, tried])).rows;
    if (offered.length === 0) break;
    tried.push(...offered.map((row) => row.seq));
    // Only what fits each subscription's share beside what earlier rounds leased: whatever of
    // these the UPDATE leases is then within the limits.
    const planned = new Map(perSubscription);
    const candidates = offered.filter((row) => {
      const count = planned.get(row.subscription_id) ?? 0;
      if (count >= perSubscriptionLimit) return false;
      planned.set(row.subscription_id, count + 1);
      return true;
    });
    if (candidates.length === 0) continue;
    const rows = (await client.query<LeasedRow>(SQL.leaseDeliveries, [candidates.map((row) => row.seq), now, leaseUntil])).rows;
    const order = new Map(candidates.map((row, index) => [row.seq, index]));
    rows.sort((a, b) => order.get(a.seq)! - order.get(b.seq)!);
    for (const row of rows) perSubscription.set(row.subscription_id, (perSubscription.get(row.subscription_id) ?? 0) + 1);
    leased.push(...rows);
  }
  return leased;
}

/**
 * Subscriptions and deliveries on PostgreSQL. Each method that writes is one transaction. The
 * outbox is fanned out and deliveries claimed with `FOR UPDATE SKIP LOCKED`, and a claim is a
 * lease: several server processes deliver from one outbox, each attempt made by one of them,
 * and a crashed process's claims come due again when their lease ends.
 */
export function createPostgresWebhookStorage(pool: pg.Pool): WebhookStorage {
  // Claims (and fan-outs) of this process run one after the other, in call order, as on SQLite:
  // the earlier call gets the most overdue work. Other processes still claim side by side
  // (SKIP LOCKED); this only orders the calls that meet in one process.
  const inTurn = createTurns();

  /** Fans out up to `limit` waiting events, each marked with its deliveries in one transaction. */
  function fanOutInTransaction(limit: number, at: number, newId: () => string): Promise<{ events: number; deliveries: number }> {
    return inTransaction(pool, async (client) => {
      const events = (await client.query<OutboxEventRow & { seq: number }>(SQL.undispatchedEvents, [limit])).rows;
      let deliveries = 0;
      for (const event of events) {
        // Marked and matched in one statement: each statement an event costs PostgreSQL CPU (docs/scaling.md).
        const { subscriptions } = (await client.query<{ subscriptions: string[] }>(SQL.dispatchEvent, [at, event.seq])).rows[0]!;
        for (const subscription of subscriptions) {
          deliveries += (await client.query(SQL.insertDelivery, [newId(), subscription, event.id, event.type, at])).rowCount ?? 0;
        }
      }
      return { events: events.length, deliveries };
    });
  }

  return {
    async createWebhookSubscription(subscription) {
      await pool.query(SQL.insertSubscription, columnValues(postgresRows.webhookSubscriptionToRow(subscription), SUBSCRIPTION_COLUMNS));
      return { ...subscription, eventTypes: [...subscription.eventTypes] };
    },
    async listWebhookSubscriptions(userId) {
      return (await pool.query<WebhookSubscriptionRow>(SQL.listSubscriptions, [userId])).rows.map(webhookSubscriptionFromRow);
    },
    async deleteWebhookSubscription(id) {
      return inTransaction(pool, async (client) => {
        if ((await client.query(SQL.deleteSubscription, [id])).rowCount === 0) return false;
        await client.query(SQL.failPendingOfSubscription, [id]);
        return true;
      });
    },

    async fanOutOutboxEvents({ limit, at, newId }) {
      return inTurn(async () => {
        // Most events go to no subscription (every chat writes two, webhooks or not): those are
        // marked in one statement, without BEGIN and COMMIT, at each pass of every process's
        // dispatcher. Only events that have deliveries to write take the transaction below.
        if (limit <= 0) return { events: 0, deliveries: 0 };
        const { picked, marked } = (await pool.query<{ picked: number; marked: number }>(SQL.dispatchUnwantedEvents, [limit, at])).rows[0]!;
        if (picked === marked) return { events: marked, deliveries: 0 };
        const wanted = await fanOutInTransaction(limit - marked, at, newId);
        return { events: marked + wanted.events, deliveries: wanted.deliveries };
      });
    },
    async claimDueDeliveries(input) {
      if (input.limit <= 0) return [];
      return inTurn(async () => {
        // Most looks find nothing due: one read outside a transaction says so (a BEGIN and a
        // COMMIT fewer at each pass of every dispatcher). Whatever it finds is read again and
        // leased in the transaction below, so the claim is the same.
        const { now, skipSubscriptionIds, perSubscriptionLimit, limit } = input;
        if ((await pool.query(SQL.dueDeliveries, [now, [...skipSubscriptionIds], perSubscriptionLimit, limit, []])).rows.length === 0) return [];
        return inTransaction(pool, async (client) => {
          const leased = await leaseDue(client, input);
          const claims: ClaimedDelivery[] = [];
          for (const row of leased) {
            const delivery = webhookDeliveryFromRow(row);
            // Both exist: an event is never deleted, and removing a subscription fails its pending deliveries.
            const event = outboxEventFromRow((await client.query<OutboxEventRow>(SQL.getEvent, [delivery.eventId])).rows[0]!);
            const subscription = webhookSubscriptionFromRow((await client.query<WebhookSubscriptionRow>(SQL.getSubscription, [delivery.subscriptionId])).rows[0]!);
            claims.push({ delivery, event, subscription });
          }
          return claims;
        });
      });
    },
    async recordDeliveryAttempt(attempt) {
      const state = deliveryStateAfter(attempt);
      const { rows } = await pool.query<WebhookDeliveryRow>(SQL.recordAttempt, [
        attempt.id, attempt.attempt, state.status, state.nextAttemptAt, attempt.at, attempt.responseStatus, attempt.error, state.deliveredAt,
      ]);
      return rows[0] ? webhookDeliveryFromRow(rows[0]) : null;
    },
    async listDeliveries({ status, limit, userId, afterId }) {
      // An unknown `afterId` (never one of ours) ends the list rather than restarting it.
      const before = afterId === undefined ? null : ((await pool.query<{ seq: number }>(SQL.seqOfDelivery, [afterId])).rows[0]?.seq ?? 0);
      const { rows } = await pool.query<WebhookDeliveryRow>(SQL.listDeliveries, [status ?? null, userId ?? null, before, limit]);
      return rows.map(webhookDeliveryFromRow);
    },
    async getDelivery(id) {
      const { rows } = await pool.query<WebhookDeliveryRow>(SQL.getDelivery, [id]);
      return rows[0] ? webhookDeliveryFromRow(rows[0]) : null;
    },
    async retryDelivery(id, at) {
      const row = await inTransaction(pool, async (client) => {
        const found = (await client.query<WebhookDeliveryRow & { leased_until: number | null }>(SQL.lockDelivery, [id])).rows[0];
        if (!found || (await client.query(SQL.getSubscription, [found.subscription_id])).rows.length === 0) return undefined;
        if (found.status !== "pending") return (await client.query<WebhookDeliveryRow>(SQL.restartDelivery, [at, id])).rows[0];
        // An attempt in flight keeps its lease: bringing it forward would send it twice at once.
        if (found.leased_until !== null && found.leased_until > at) return found;
        return (await client.query<WebhookDeliveryRow>(SQL.bringForward, [at, id])).rows[0];
      });
      return row ? webhookDeliveryFromRow(row) : null;
    },
  };
}
