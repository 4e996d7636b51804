import type { Database } from "better-sqlite3";
import { deliveryStateAfter, type ClaimedDelivery, type WebhookStorage } from "@parley/core";
import { outboxEventFromRow, webhookDeliveryFromRow, webhookSubscriptionFromRow } from "@parley/core/storage-rows";
import { sqliteRows } from "./sqlite-storage-rows.js";
import { prepareWebhookStatements } from "./sqlite-webhook-statements.js";

/** The webhook part of the Storage port (re-exported for the adapter's callers). */
export type { WebhookStorage };

/** Runs a step as one IMMEDIATE transaction (the adapter's `write`). */
export type WriteStep = <Result>(step: () => Result) => Result;

/**
 * Subscriptions and deliveries on better-sqlite3. Like the rest of the adapter, each method is
 * one transaction; claims run under the write lock, so two dispatchers on one database file
 * never lease the same attempt.
 */
export function createSqliteWebhookStorage(database: Database, write: WriteStep): WebhookStorage {
  const statements = prepareWebhookStatements(database);
  return {
    async createWebhookSubscription(subscription) {
      write(() => statements.insertSubscription.run(sqliteRows.webhookSubscriptionToRow(subscription)));
      return { ...subscription, eventTypes: [...subscription.eventTypes] };
    },
    async listWebhookSubscriptions(userId) {
      return statements.listSubscriptions.all(userId).map(webhookSubscriptionFromRow);
    },
    async deleteWebhookSubscription(id) {
      return write(() => {
        if (statements.deleteSubscription.run(id).changes === 0) return false;
        statements.failPendingOfSubscription.run(id);
        return true;
      });
    },

    async fanOutOutboxEvents({ limit, at, newId }) {
      return write(() => {
        const events = statements.undispatchedEvents.all(limit);
        let deliveries = 0;
        for (const event of events) {
          const matching = statements.matchingSubscriptions.all({ user_id: event.user_id, chatbot_id: event.chatbot_id, type: event.type, created_at: event.created_at });
          for (const subscription of matching) {
            statements.insertDelivery.run({ id: newId(), subscription_id: subscription.id, event_id: event.id, event_type: event.type, at });
            deliveries += 1;
          }
          statements.markDispatched.run(at, event.seq);
        }
        return { events: events.length, deliveries };
      });
    },
    async claimDueDeliveries({ now, limit, perSubscriptionLimit, skipSubscriptionIds, leaseUntil }) {
      if (limit <= 0) return [];
      return write(() => {
        const due = statements.dueDeliveries.all({ now, skip: JSON.stringify(skipSubscriptionIds), per_subscription: perSubscriptionLimit, limit });
        return due.map(({ seq }): ClaimedDelivery => {
          const delivery = webhookDeliveryFromRow(statements.leaseDelivery.get(leaseUntil, leaseUntil, seq)!);
          // Both exist: an event is never deleted, and removing a subscription fails its pending deliveries.
          const event = outboxEventFromRow(statements.getEvent.get(delivery.eventId)!);
          const subscription = webhookSubscriptionFromRow(statements.getSubscription.get(delivery.subscriptionId)!);
          return { delivery, event, subscription };
        });
      });
    },
    async recordDeliveryAttempt(attempt) {
      const state = deliveryStateAfter(attempt);
      const row = write(() =>
        statements.recordAttempt.get({
          id: attempt.id,
          attempt: attempt.attempt,
          status: state.status,
          next_attempt_at: state.nextAttemptAt,
          at: attempt.at,
          response_status: attempt.responseStatus,
          error: attempt.error,
          delivered_at: state.deliveredAt,
        }),
      );
      return row ? webhookDeliveryFromRow(row) : null;
    },
    async listDeliveries({ status, limit, userId, afterId }) {
      // An unknown `afterId` (never one of ours) ends the list rather than restarting it.
      const beforeSeq = afterId === undefined ? null : (statements.seqOfDelivery.get(afterId)?.seq ?? 0);
      const parameters = { status: status ?? null, user_id: userId ?? null, before_seq: beforeSeq, limit };
      const statement = userId !== undefined ? statements.listUserDeliveries : status !== undefined ? statements.listDeliveriesByStatus : statements.listDeliveries;
      return statement.all(parameters).map(webhookDeliveryFromRow);
    },
    async getDelivery(id) {
      const row = statements.getDelivery.get(id);
      return row ? webhookDeliveryFromRow(row) : null;
    },
    async retryDelivery(id, at) {
      const row = write(() => {
        const found = statements.getDelivery.get(id);
        if (!found || !statements.getSubscription.get(found.subscription_id)) return undefined;
        if (found.status !== "pending") return statements.restartDelivery.get(at, id);
        // An attempt in flight keeps its lease: bringing it forward would send it twice at once.
        if (found.leased_until !== null && found.leased_until > at) return found;
        return statements.bringForward.get(at, id);
      });
      return row ? webhookDeliveryFromRow(row) : null;
    },
  };
}
