import { describe, expect } from "vitest";
import type { EventType } from "../domain/events.js";
import type { WebhookSubscription } from "../domain/webhook.js";
import { START, acceptMessage, seedChatbot, seedUser, type ContractContext, type RegisterTest } from "./storage-contract-fixtures.js";

const SECOND = 1_000_000;

/** A subscription of the user, created at START unless told otherwise. */
async function subscribe(
  context: ContractContext,
  userId: string,
  options: { chatbotId?: string; eventTypes?: EventType[]; createdAt?: number } = {},
): Promise<WebhookSubscription> {
  return context.storage().createWebhookSubscription({
    id: context.nextId(),
    userId,
    url: "https://hooks.example.com/parley",
    publicOnly: false,
    chatbotId: options.chatbotId ?? null,
    eventTypes: options.eventTypes ?? [],
    signingKeyId: "0123456789abcdef",
    createdAt: options.createdAt ?? START,
  });
}

/** A user with a chatbot, a subscription to everything, one message (two events) fanned out. */
async function oneMessageFannedOut(context: ContractContext) {
  const user = await seedUser(context);
  const chatbot = await seedChatbot(context, user.id);
  const subscription = await subscribe(context, user.id);
  const accepted = await acceptMessage(context, chatbot, { at: START + SECOND });
  await context.storage().fanOutOutboxEvents({ limit: 10, at: START + 2 * SECOND, newId: context.nextId });
  return { user, chatbot, subscription, accepted };
}

const claim = (context: ContractContext, now: number, overrides: { limit?: number; perSubscriptionLimit?: number; skipSubscriptionIds?: string[] } = {}) =>
  context.storage().claimDueDeliveries({ now, limit: 10, perSubscriptionLimit: 10, skipSubscriptionIds: [], leaseUntil: now + 60 * SECOND, ...overrides });

/** Outbox fan-out, leases, attempts, history and retries of webhook deliveries. */
export function registerWebhookTests(context: ContractContext, test: RegisterTest): void {
  const storage = () => context.storage();

  describe("webhook deliveries", () => {
    test("fanOutOutboxEvents creates one pending delivery per matching subscription and marks the events dispatched", async () => {
      const { subscription, accepted } = await oneMessageFannedOut(context);
      const deliveries = await storage().listDeliveries({ limit: 10 });
      expect(deliveries.map((delivery) => [delivery.eventId, delivery.eventType])).toEqual([
        [accepted.events[1]!.id, "message.received"],
        [accepted.events[0]!.id, "conversation.started"],
      ]);
      expect(deliveries[0]).toMatchObject({ subscriptionId: subscription.id, status: "pending", attempts: 0, nextAttemptAt: START + 2 * SECOND, createdAt: START + 2 * SECOND });
      expect(new Set(deliveries.map((delivery) => delivery.id)).size).toBe(2);
      expect(await storage().fanOutOutboxEvents({ limit: 10, at: START + 3 * SECOND, newId: context.nextId })).toEqual({ events: 0, deliveries: 0 });
    });

    test("fanOutOutboxEvents narrows by chatbot and event type, and skips subscriptions created after the event", async () => {
      const user = await seedUser(context);
      const other = await seedUser(context);
      const [first, second] = [await seedChatbot(context, user.id), await seedChatbot(context, user.id)];
      const everything = await subscribe(context, user.id);
      const firstBotOnly = await subscribe(context, user.id, { chatbotId: first.id });
      const startsOnly = await subscribe(context, user.id, { eventTypes: ["conversation.started"] });
      await subscribe(context, user.id, { createdAt: START + 5 * SECOND }); // after the events
      await subscribe(context, other.id); // another user's
      await acceptMessage(context, first, { at: START + SECOND });
      await acceptMessage(context, second, { at: START + SECOND });
      expect(await storage().fanOutOutboxEvents({ limit: 10, at: START + 9 * SECOND, newId: context.nextId })).toEqual({ events: 4, deliveries: 8 });
      const received = (id: string) => storage().listDeliveries({ limit: 20 }).then((all) => all.filter((delivery) => delivery.subscriptionId === id));
      expect(await received(everything.id)).toHaveLength(4);
      expect((await received(firstBotOnly.id)).map((delivery) => delivery.eventType).sort()).toEqual(["conversation.started", "message.received"]);
      expect((await received(startsOnly.id)).map((delivery) => delivery.eventType)).toEqual(["conversation.started", "conversation.started"]);
    });

    test("fanOutOutboxEvents takes the oldest events first, at most limit, each exactly once", async () => {
      const user = await seedUser(context);
      const chatbot = await seedChatbot(context, user.id);
      await subscribe(context, user.id);
      const events = [];
      for (let index = 1; index <= 3; index += 1) events.push(...(await acceptMessage(context, chatbot, { at: START + index * SECOND })).events);
      const fanOut = () => storage().fanOutOutboxEvents({ limit: 3, at: START + 9 * SECOND, newId: context.nextId });
      expect(await fanOut()).toEqual({ events: 3, deliveries: 3 });
      expect((await storage().listDeliveries({ limit: 10 })).map((delivery) => delivery.eventId).reverse()).toEqual(events.slice(0, 3).map((event) => event.id));
      expect(await fanOut()).toEqual({ events: 1, deliveries: 1 });
      expect(await fanOut()).toEqual({ events: 0, deliveries: 0 });
    });

    test("claimDueDeliveries leases due deliveries most overdue first, counting an attempt, and never the same attempt twice", async () => {
      const { subscription, accepted } = await oneMessageFannedOut(context);
      expect(await claim(context, START + SECOND)).toEqual([]); // not due yet
      const now = START + 3 * SECOND;
      const [first, second] = await Promise.all([claim(context, now, { limit: 1 }), claim(context, now, { limit: 1 })]);
      const claimed = [...first!, ...second!];
      expect(claimed.map((item) => item.event)).toEqual(accepted.events); // the same due time: creation order
      expect(claimed[0]).toMatchObject({ subscription, delivery: { attempts: 1, status: "pending", nextAttemptAt: now + 60 * SECOND } });
      expect(await claim(context, now + 59 * SECOND)).toEqual([]);
    });

    test("claimDueDeliveries takes at most perSubscriptionLimit per subscription and skips the subscriptions named", async () => {
      const { user, chatbot, subscription } = await oneMessageFannedOut(context);
      const second = await subscribe(context, user.id, { createdAt: START + 3 * SECOND });
      await acceptMessage(context, chatbot, { at: START + 4 * SECOND });
      await storage().fanOutOutboxEvents({ limit: 10, at: START + 5 * SECOND, newId: context.nextId });
      const now = START + 6 * SECOND;
      // The first subscription has three due, the second one: a limit of 1 takes one of each.
      const fair = await claim(context, now, { perSubscriptionLimit: 1 });
      expect(fair.map((item) => item.subscription.id)).toEqual([subscription.id, second.id]);
      expect(await claim(context, now, { skipSubscriptionIds: [subscription.id] })).toEqual([]);
      expect((await claim(context, now)).map((item) => item.subscription.id)).toEqual([subscription.id, subscription.id]);
    });

    test("recordDeliveryAttempt records delivered, retry and failed, and ignores a stale attempt", async () => {
      await oneMessageFannedOut(context);
      const [started, received] = await claim(context, START + 3 * SECOND);
      const at = START + 4 * SECOND;
      const retried = await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 1, at, responseStatus: 500, error: "HTTP 500", outcome: "retry", nextAttemptAt: at + 5 * SECOND });
      expect(retried).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: at + 5 * SECOND, lastAttemptAt: at, lastResponseStatus: 500, lastError: "HTTP 500" });
      expect(await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 1, at, responseStatus: 200, error: null, outcome: "delivered" })).toBeNull();
      const [again] = await claim(context, at + 5 * SECOND);
      expect(again!.delivery).toMatchObject({ id: started!.delivery.id, attempts: 2 });
      const delivered = await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 2, at: at + 6 * SECOND, responseStatus: 204, error: null, outcome: "delivered" });
      expect(delivered).toMatchObject({ status: "delivered", nextAttemptAt: null, deliveredAt: at + 6 * SECOND, lastError: null, lastResponseStatus: 204 });
      const failed = await storage().recordDeliveryAttempt({ id: received!.delivery.id, attempt: 1, at, responseStatus: null, error: "timed out after 10000 ms", outcome: "failed" });
      expect(failed).toMatchObject({ status: "failed", nextAttemptAt: null, deliveredAt: null, lastResponseStatus: null, lastError: "timed out after 10000 ms" });
      expect(await claim(context, at + 3600 * SECOND)).toEqual([]);
    });

    test("a claim whose lease ended is claimed again as the next attempt", async () => {
      await oneMessageFannedOut(context);
      const [first] = await claim(context, START + 3 * SECOND);
      const [again] = await claim(context, START + 63 * SECOND);
      expect(again!.delivery).toMatchObject({ id: first!.delivery.id, attempts: 2 });
      // The first claimant's late outcome no longer counts.
      expect(await storage().recordDeliveryAttempt({ id: first!.delivery.id, attempt: 1, at: START + 64 * SECOND, responseStatus: 200, error: null, outcome: "delivered" })).toBeNull();
    });

    test("listDeliveries returns the newest first, at most limit, optionally of one status", async () => {
      await oneMessageFannedOut(context);
      const [started] = await claim(context, START + 3 * SECOND, { limit: 1 });
      await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 1, at: START + 4 * SECOND, responseStatus: 200, error: null, outcome: "delivered" });
      const all = await storage().listDeliveries({ limit: 10 });
      expect(all.map((delivery) => delivery.eventType)).toEqual(["message.received", "conversation.started"]);
      expect(await storage().listDeliveries({ limit: 1 })).toEqual(all.slice(0, 1));
      expect(await storage().listDeliveries({ status: "delivered", limit: 10 })).toEqual([all[1]]);
      expect(await storage().listDeliveries({ status: "failed", limit: 10 })).toEqual([]);
    });

    test("retryDelivery makes a failed delivery pending again and brings a pending one forward, but not one in flight", async () => {
      await oneMessageFannedOut(context);
      const [started, received] = await claim(context, START + 3 * SECOND);
      const at = START + 4 * SECOND;
      await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 1, at, responseStatus: 410, error: "HTTP 410", outcome: "failed" });
      expect(await storage().retryDelivery(received!.delivery.id, at)).toMatchObject({ status: "pending", nextAttemptAt: START + 63 * SECOND });
      const restarted = await storage().retryDelivery(started!.delivery.id, at + SECOND);
      expect(restarted).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: at + SECOND, lastError: "HTTP 410" });
      await storage().recordDeliveryAttempt({ id: received!.delivery.id, attempt: 1, at, responseStatus: 503, error: "HTTP 503", outcome: "retry", nextAttemptAt: at + 3600 * SECOND });
      expect(await storage().retryDelivery(received!.delivery.id, at + 2 * SECOND)).toMatchObject({ status: "pending", attempts: 1, nextAttemptAt: at + 2 * SECOND });
      expect((await claim(context, at + 2 * SECOND)).map((item) => item.delivery.id).sort()).toEqual([started!.delivery.id, received!.delivery.id].sort());
    });

    test("retryDelivery returns null for an unknown delivery or one whose subscription was removed", async () => {
      const { subscription } = await oneMessageFannedOut(context);
      const [delivery] = await storage().listDeliveries({ limit: 1 });
      expect(await storage().retryDelivery(context.nextId(), START)).toBeNull();
      await storage().deleteWebhookSubscription(subscription.id);
      expect(await storage().retryDelivery(delivery!.id, START + 9 * SECOND)).toBeNull();
    });

    test("deleteWebhookSubscription fails its pending deliveries and keeps its delivered ones", async () => {
      const { subscription } = await oneMessageFannedOut(context);
      const [started] = await claim(context, START + 3 * SECOND, { limit: 1 });
      await storage().recordDeliveryAttempt({ id: started!.delivery.id, attempt: 1, at: START + 4 * SECOND, responseStatus: 200, error: null, outcome: "delivered" });
      expect(await storage().deleteWebhookSubscription(subscription.id)).toBe(true);
      const [received, delivered] = await storage().listDeliveries({ limit: 10 });
      expect(received).toMatchObject({ status: "failed", nextAttemptAt: null, lastError: "subscription removed" });
      expect(delivered).toMatchObject({ status: "delivered", deliveredAt: START + 4 * SECOND });
      expect(await claim(context, START + 3600 * SECOND)).toEqual([]);
    });
  });
}
