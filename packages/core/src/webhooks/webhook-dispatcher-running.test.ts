import { describe, expect, it } from "vitest";
import type { Storage } from "../ports/storage.js";
import { bodyOf, receiversClosedAfterEach, setupWebhooks } from "../../test/webhook-harness.js";

const newReceiver = receiversClosedAfterEach();

describe("webhook dispatcher, started", () => {
  it("delivers as soon as the bus reports a committed event, without waiting for its next poll", async () => {
    const receiver = await newReceiver();
    const { parley, storage, send, outbox } = await setupWebhooks(receiver);
    // The storage tells when the started dispatcher's first pass has claimed (nothing, yet).
    let firstClaim!: (claimed: number) => void;
    const firstPassClaimed = new Promise<number>((resolve) => (firstClaim = resolve));
    const watched: Storage = {
      ...storage,
      claimDueDeliveries: async (query) => {
        const claimed = await storage.claimDueDeliveries(query);
        firstClaim(claimed.length);
        return claimed;
      },
    };
    const dispatcher = parley.createWebhookDispatcher({ storage: watched, retry: { random: () => 0.5 }, pollIntervalMs: 60_000 });
    dispatcher.start();
    try {
      expect(await firstPassClaimed).toBe(0);
      // The next poll is a minute away: only the bus can make these arrive within the 15 s wait.
      await send("hello");
      const written = (await outbox()).map((event) => event.type).sort();
      expect(written).toEqual(expect.arrayContaining(["conversation.started", "message.received"]));
      await receiver.waitFor(written.length, 15_000);
      expect(receiver.requests.map((request) => bodyOf(request).type).sort()).toEqual(written);
    } finally {
      await dispatcher.stop();
    }
  }, 20_000);

  it("stop waits for the attempts in flight and records them", async () => {
    const receiver = await newReceiver();
    receiver.script("hang");
    const { dispatcher, send, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"], dispatcher: { timeoutMs: 300 } });
    await send("hello");
    dispatcher.start();
    await receiver.waitFor(1, 15_000); // bounds a hang only
    await dispatcher.stop();
    expect(await deliveries()).toMatchObject([{ status: "pending", attempts: 1, lastError: "timed out after 300 ms" }]);
  });

  it("keeps delivering to a healthy receiver while another hangs on every request", async () => {
    const [dead, healthy] = [await newReceiver(), await newReceiver()];
    dead.fallback = "hang";
    // Long enough that no attempt times out during the test: the dead receiver's slots stay held.
    const timeoutMs = 60_000;
    const { send, parley, storage, user, subscription, deliveries, outbox } = await setupWebhooks(dead);
    const healthySubscription = await parley.admin.createWebhookSubscription({ userId: user.id, url: healthy.url });
    for (let message = 1; message <= 6; message += 1) await send(`message ${message}`);
    // Every event the six messages wrote goes to each subscription (neither filters by type).
    const events = (await outbox()).length;
    expect(events).toBeGreaterThanOrEqual(7); // a conversation.started and six message.received at least
    // The storage tells when an attempt at each of the healthy receiver's deliveries is recorded.
    let healthyRecorded = 0;
    let allRecorded!: () => void;
    const recorded = new Promise<void>((resolve) => (allRecorded = resolve));
    const watched: Storage = {
      ...storage,
      recordDeliveryAttempt: async (input) => {
        const delivery = await storage.recordDeliveryAttempt(input);
        if (delivery?.subscriptionId === healthySubscription.id && ++healthyRecorded === events) allRecorded();
        return delivery;
      },
    };
    const dispatcher = parley.createWebhookDispatcher({ storage: watched, retry: { random: () => 0.5 }, timeoutMs, concurrency: 4, perSubscriptionConcurrency: 2, pollIntervalMs: 20 });
    dispatcher.start();
    try {
      await healthy.waitFor(events, 15_000);
      await recorded;
      const of = async (subscriptionId: string) => (await deliveries()).filter((delivery) => delivery.subscriptionId === subscriptionId);
      expect((await of(healthySubscription.id)).map((delivery) => delivery.status)).toEqual(Array(events).fill("delivered"));
      // The dead receiver holds exactly its two slots: two attempts started, the rest never claimed.
      await dead.waitFor(2);
      expect(dead.requests).toHaveLength(2);
      expect((await of(subscription.id)).map((delivery) => delivery.attempts).sort()).toEqual([...Array(events - 2).fill(0), 1, 1]);
    } finally {
      await dead.close(); // cuts the hanging attempts, so stop() need not wait a minute
      await dispatcher.stop();
    }
  }, 20_000); // the 15 s wait only guards against a hang; under load the deliveries take longer than 5 s
});
