import type { OutboxEvent } from "../domain/events.js";
import type { ClaimedDelivery, WebhookDelivery, WebhookSubscription } from "../domain/webhook.js";
import type { WebhookStorage } from "../ports/storage.js";
import { deliveryStateAfter } from "../webhooks/delivery-state.js";

/** The webhook part of the Storage port (re-exported for the memory adapter's callers). */
export type { WebhookStorage };

interface StoredDelivery {
  delivery: WebhookDelivery;
  /** End of the lease of an attempt in flight; null when none is. */
  leasedUntil: number | null;
}

/** Whether a subscription wants an event: its user's, since its creation, narrowed by chatbot and type. */
export function subscriptionMatches(subscription: WebhookSubscription, event: OutboxEvent): boolean {
  return (
    subscription.userId === event.userId &&
    subscription.createdAt <= event.createdAt &&
    (subscription.chatbotId === null || subscription.chatbotId === event.chatbotId) &&
    (subscription.eventTypes.length === 0 || subscription.eventTypes.includes(event.type))
  );
}

/**
 * Subscriptions and deliveries in memory, over the memory storage's outbox (read only). Like
 * the rest of the memory storage, every method finishes before its first `await`, so each is
 * atomic in one JavaScript thread.
 */
export function createMemoryWebhookStore(outbox: readonly OutboxEvent[]): WebhookStorage {
  const subscriptions = new Map<string, WebhookSubscription>();
  const deliveries: StoredDelivery[] = [];
  // Events are fanned out strictly in outbox order, so the dispatched ones are a prefix.
  let dispatched = 0;
  const copy = <T>(value: T): T => structuredClone(value);
  const find = (id: string) => deliveries.find((stored) => stored.delivery.id === id);

  return {
    async createWebhookSubscription(subscription) {
      subscriptions.set(subscription.id, copy(subscription));
      return copy(subscription);
    },
    async listWebhookSubscriptions(userId) {
      return [...subscriptions.values()]
        .filter((subscription) => subscription.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt)
        .map(copy);
    },
    async deleteWebhookSubscription(id) {
      if (!subscriptions.delete(id)) return false;
      for (const stored of deliveries) {
        if (stored.delivery.subscriptionId !== id || stored.delivery.status !== "pending") continue;
        Object.assign(stored.delivery, { status: "failed", nextAttemptAt: null, lastError: "subscription removed" });
        stored.leasedUntil = null;
      }
      return true;
    },

    async fanOutOutboxEvents({ limit, at, newId }) {
      const events = outbox.slice(dispatched, dispatched + limit);
      let created = 0;
      for (const event of events) {
        for (const subscription of [...subscriptions.values()].sort((a, b) => a.createdAt - b.createdAt)) {
          if (!subscriptionMatches(subscription, event)) continue;
          deliveries.push({ delivery: newDelivery(newId(), subscription, event, at), leasedUntil: null });
          created += 1;
        }
      }
      dispatched += events.length;
      return { events: events.length, deliveries: created };
    },
    async claimDueDeliveries({ now, limit, perSubscriptionLimit, skipSubscriptionIds, leaseUntil }) {
      const due = deliveries
        .map((stored, order) => ({ stored, order }))
        .filter(({ stored: { delivery } }) => delivery.status === "pending" && delivery.nextAttemptAt! <= now)
        .filter(({ stored: { delivery } }) => !skipSubscriptionIds.includes(delivery.subscriptionId))
        .sort((a, b) => a.stored.delivery.nextAttemptAt! - b.stored.delivery.nextAttemptAt! || a.order - b.order);
      const perSubscription = new Map<string, number>();
      const claimed: ClaimedDelivery[] = [];
      for (const { stored } of due) {
        if (claimed.length >= limit) break;
        const { delivery } = stored;
        const taken = perSubscription.get(delivery.subscriptionId) ?? 0;
        if (taken >= perSubscriptionLimit) continue;
        perSubscription.set(delivery.subscriptionId, taken + 1);
        delivery.attempts += 1;
        delivery.nextAttemptAt = leaseUntil;
        stored.leasedUntil = leaseUntil;
        const event = outbox.find((candidate) => candidate.id === delivery.eventId)!;
        claimed.push(copy({ delivery, event, subscription: subscriptions.get(delivery.subscriptionId)! }));
      }
      return claimed;
    },
    async recordDeliveryAttempt(attempt) {
      const stored = find(attempt.id);
      if (!stored || stored.leasedUntil === null || stored.delivery.status !== "pending" || stored.delivery.attempts !== attempt.attempt) return null;
      Object.assign(stored.delivery, {
        ...deliveryStateAfter(attempt),
        lastAttemptAt: attempt.at,
        lastResponseStatus: attempt.responseStatus,
        lastError: attempt.error,
      });
      stored.leasedUntil = null;
      return copy(stored.delivery);
    },
    async listDeliveries({ status, limit, userId, afterId }) {
      const end = afterId === undefined ? deliveries.length : deliveries.findIndex((stored) => stored.delivery.id === afterId);
      return deliveries
        .slice(0, Math.max(0, end))
        .filter(({ delivery }) => status === undefined || delivery.status === status)
        .filter(({ delivery }) => userId === undefined || delivery.userId === userId)
        .reverse()
        .slice(0, limit)
        .map(({ delivery }) => copy(delivery));
    },
    async getDelivery(id) {
      const stored = find(id);
      return stored ? copy(stored.delivery) : null;
    },
    async retryDelivery(id, at) {
      const stored = find(id);
      if (!stored || !subscriptions.has(stored.delivery.subscriptionId)) return null;
      const { delivery } = stored;
      if (delivery.status !== "pending") {
        Object.assign(delivery, { status: "pending", attempts: 0, nextAttemptAt: at, deliveredAt: null });
      } else if (stored.leasedUntil === null || stored.leasedUntil <= at) {
        delivery.nextAttemptAt = Math.min(delivery.nextAttemptAt!, at);
        stored.leasedUntil = null;
      }
      return copy(delivery);
    },
  };
}

function newDelivery(id: string, subscription: WebhookSubscription, event: OutboxEvent, at: number): WebhookDelivery {
  return {
    id,
    subscriptionId: subscription.id,
    userId: subscription.userId,
    eventId: event.id,
    eventType: event.type,
    status: "pending",
    attempts: 0,
    nextAttemptAt: at,
    lastAttemptAt: null,
    lastResponseStatus: null,
    lastError: null,
    createdAt: at,
    deliveredAt: null,
  };
}
