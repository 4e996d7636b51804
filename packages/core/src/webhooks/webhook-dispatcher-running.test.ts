import { describe, expect, it, vi } from "vitest";
import type { Storage } from "../ports/storage.js";
import { setup } from "../../test/harness.js";
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

  it("while no subscription wants the events, lets committed events wait 250 ms for the next pass; with webhooks flowing, 20 ms", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    try {
      const context = await setup();
      let passes = 0;
      const counted: Storage = {
        ...context.storage,
        fanOutOutboxEvents: async (input) => {
          passes++;
          return context.storage.fanOutOutboxEvents(input);
        },
      };
      const ok = async () => new Response(null, { status: 204 });
      const dispatcher = context.parley.createWebhookDispatcher({ storage: counted, fetch: ok, pollIntervalMs: 60_000 });
      const send = (message: string) => context.parley.chat(context.caller, context.chatbot.id, { message, session_id: "visitor-1" });
      dispatcher.start();
      try {
        await vi.advanceTimersByTimeAsync(0);
        expect(passes).toBe(1); // the start's pass: no subscription, nothing due

        // Events no one subscribed to: fanned out by a pass 20 ms later, after which the next
        // events wait for the quiet gap.
        await send("hello");
        await vi.advanceTimersByTimeAsync(25);
        expect(passes).toBe(2);
        await send("hello again");
        await vi.advanceTimersByTimeAsync(200);
        expect(passes).toBe(2);
        await vi.advanceTimersByTimeAsync(60);
        expect(passes).toBe(3);

        // A subscription: the next pass, after the quiet gap, makes deliveries (and the freed slots
        // one more pass); from then on a committed event's pass follows within 20 ms.
        await context.parley.admin.createWebhookSubscription({ userId: context.user.id, url: "https://receiver.example/hooks" });
        await send("again");
        await vi.advanceTimersByTimeAsync(200);
        expect(passes).toBe(3);
        await vi.advanceTimersByTimeAsync(60);
        expect(passes).toBeGreaterThanOrEqual(4);
        expect((await context.storage.listDeliveries({ limit: 10 })).length).toBeGreaterThan(0);
        await vi.advanceTimersByTimeAsync(1_000);
        const before = passes;
        await send("and again");
        await vi.advanceTimersByTimeAsync(25);
        expect(passes).toBeGreaterThan(before);
      } finally {
        await dispatcher.stop();
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
