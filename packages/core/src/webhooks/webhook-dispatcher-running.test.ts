import { describe, expect, it } from "vitest";
import { receiversClosedAfterEach, setupWebhooks } from "../../test/webhook-harness.js";

const newReceiver = receiversClosedAfterEach();

describe("webhook dispatcher, started", () => {
  it("delivers as soon as the bus reports a committed event, without waiting for its next poll", async () => {
    const receiver = await newReceiver();
    const { dispatcher, send } = await setupWebhooks(receiver, { dispatcher: { pollIntervalMs: 60_000 } });
    dispatcher.start();
    try {
      // Let the first pass find nothing, so only the bus can trigger the next one in time.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await send("hello");
      await receiver.waitFor(2, 2_000);
    } finally {
      await dispatcher.stop();
    }
  });

  it("stop waits for the attempts in flight and records them", async () => {
    const receiver = await newReceiver();
    receiver.script("hang");
    const { dispatcher, send, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"], dispatcher: { timeoutMs: 300 } });
    await send("hello");
    dispatcher.start();
    await receiver.waitFor(1, 2_000);
    await dispatcher.stop();
    expect(await deliveries()).toMatchObject([{ status: "pending", attempts: 1, lastError: "timed out after 300 ms" }]);
  });

  it("keeps delivering to a healthy receiver while another hangs on every request", async () => {
    const [dead, healthy] = [await newReceiver(), await newReceiver()];
    dead.fallback = "hang";
    const timeoutMs = 1_500;
    const { dispatcher, send, parley, user } = await setupWebhooks(dead, {
      dispatcher: { timeoutMs, concurrency: 4, perSubscriptionConcurrency: 2, pollIntervalMs: 20 },
    });
    await parley.admin.createWebhookSubscription({ userId: user.id, url: healthy.url });
    for (let message = 1; message <= 6; message += 1) await send(`message ${message}`);
    const started = performance.now();
    dispatcher.start();
    try {
      // Seven events (one conversation.started, six message.received) for each subscription.
      await healthy.waitFor(7, timeoutMs);
      expect(performance.now() - started).toBeLessThan(timeoutMs);
      // The dead receiver holds at most its two slots; none of its attempts has even timed out yet.
      expect(dead.requests.length).toBeLessThanOrEqual(2);
    } finally {
      await dispatcher.stop();
    }
  });
});
