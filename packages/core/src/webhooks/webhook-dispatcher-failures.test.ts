import { describe, expect, it } from "vitest";
import { bodyOf, receiversClosedAfterEach, setupWebhooks } from "../../test/webhook-harness.js";
import { createDerivedWebhookSecrets } from "./derived-webhook-secrets.js";
import { DEFAULT_WEBHOOK_TIMEOUT_MS } from "./webhook-dispatcher.js";
import { invalidRequest } from "../errors.js";

const newReceiver = receiversClosedAfterEach();

describe("webhook dispatcher, when receivers fail", () => {
  it("cuts a receiver that hangs at the timeout and retries it", async () => {
    const receiver = await newReceiver();
    // The receiver answers nothing until told to: only the dispatcher's own timeout can end the
    // first attempt, whether or not its request got to the receiver before the cut (on a busy
    // machine the timer can fire before this process reads the request).
    receiver.fallback = "hang";
    const { dispatcher, send, advanceSeconds, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"], dispatcher: { timeoutMs: 200 } });
    await send("hello");
    const [cut] = await dispatcher.runOnce();
    expect(cut).toMatchObject({ outcome: "retry", responseStatus: null, error: "timed out after 200 ms" });
    receiver.fallback = 200;
    advanceSeconds(60);
    expect((await dispatcher.runOnce()).map((report) => report.outcome)).toEqual(["delivered"]);
    // The retry is the same delivery: the receiver saw only its webhook-id, the last time answered.
    const ids = receiver.requests.map((request) => request.headers["webhook-id"]);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    expect(new Set(ids)).toEqual(new Set([cut!.deliveryId]));
    expect(await deliveries()).toMatchObject([{ status: "delivered", attempts: 2 }]);
  });

  it("gives an attempt 10 000 ms unless told otherwise", async () => {
    expect(DEFAULT_WEBHOOK_TIMEOUT_MS).toBe(10_000);
    const receiver = await newReceiver();
    // A fetch that fails as AbortSignal.timeout makes it fail, at once: the report names the limit in force.
    const timingOut = async () => {
      throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    };
    const { dispatcher, send } = await setupWebhooks(receiver, { eventTypes: ["message.received"], dispatcher: { fetch: timingOut } });
    await send("hello");
    expect(await dispatcher.runOnce()).toMatchObject([{ outcome: "retry", error: "timed out after 10000 ms" }]);
  });

  it("delivers every event that accumulated while the receiver was down once it is back", async () => {
    const receiver = await newReceiver();
    await receiver.close();
    const { dispatcher, send, advanceSeconds, deliveries } = await setupWebhooks(receiver);
    for (const message of ["one", "two", "three"]) await send(message);
    for (let round = 0; round < 3; round += 1) {
      const reports = await dispatcher.runOnce();
      expect(reports.every((report) => report.outcome === "retry" && report.error === "request failed: ECONNREFUSED")).toBe(true);
      advanceSeconds(3600);
    }
    expect(receiver.requests).toHaveLength(0);
    await receiver.reopen();
    // Seven deliveries to one receiver: two rounds at four attempts in flight per subscription.
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    // Each message and the model's reply to it (message.sent), and the conversation's start.
    expect(receiver.requests.map(bodyOf).map((body) => body.data.content ?? body.type).sort()).toEqual([
      "conversation.started", "echo: one", "echo: three", "echo: two", "one", "three", "two",
    ]);
    expect((await deliveries()).map((delivery) => delivery.status)).toEqual(Array(7).fill("delivered"));
  });

  it("does not follow a redirect: a 3xx is retried like any other failure", async () => {
    const [receiver, elsewhere] = [await newReceiver(), await newReceiver()];
    const { dispatcher, send } = await setupWebhooks(receiver, { eventTypes: ["message.received"] });
    receiver.script({ status: 307, headers: { location: elsewhere.url } });
    await send("hello");
    expect(await dispatcher.runOnce()).toMatchObject([{ outcome: "retry", responseStatus: 307, error: "HTTP 307" }]);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("sends nothing under another master key, and says so in the delivery's last error", async () => {
    const receiver = await newReceiver();
    const otherKey = createDerivedWebhookSecrets(Buffer.alloc(32, 9));
    const { dispatcher, send, deliveries, subscription } = await setupWebhooks(receiver, { dispatcher: { secrets: otherKey } });
    await send("hello");
    await dispatcher.runOnce();
    expect(receiver.requests).toHaveLength(0);
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ status: "pending", attempts: 1 });
    expect(delivery!.lastError).toBe(`signing key mismatch: the subscription's secret comes from key ${subscription.signingKeyId}, this process has key ${otherKey.keyId()}`);
  });

  it("checks the address of a subscription made through the operator API before each attempt, and only of those", async () => {
    const [cliReceiver, apiReceiver] = [await newReceiver(), await newReceiver()];
    const checked: string[] = [];
    const refuseAll = async (url: string) => {
      checked.push(url);
      throw invalidRequest("url: must be at a public address");
    };
    const { dispatcher, send, parley, user, deliveries } = await setupWebhooks(cliReceiver, { eventTypes: ["message.received"], dispatcher: { checkUrl: refuseAll } });
    const made = await parley.admin.createWebhookSubscription({ userId: user.id, url: apiReceiver.url, eventTypes: ["message.received"], publicOnly: true });
    await send("hello");
    await dispatcher.runOnce();
    expect(cliReceiver.requests).toHaveLength(1);
    expect(apiReceiver.requests).toHaveLength(0);
    expect(checked).toEqual([apiReceiver.url]);
    const refused = (await deliveries()).find((delivery) => delivery.subscriptionId === made.id)!;
    expect(refused).toMatchObject({ status: "pending", attempts: 1, lastError: "url: must be at a public address", lastResponseStatus: null });
  });
});
