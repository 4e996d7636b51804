import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { bodiesByType, receiversClosedAfterEach, setupWebhooks } from "../../test/webhook-harness.js";

const newReceiver = receiversClosedAfterEach();

describe("webhook dispatcher", () => {
  it("signs each delivery so the standardwebhooks package verifies it with the secret shown at creation", async () => {
    const receiver = await newReceiver();
    // standardwebhooks refuses timestamps more than 5 minutes from the real time.
    const { dispatcher, send, subscription, chatbot, deliveries } = await setupWebhooks(receiver, { startAt: Date.now() * 1000 });
    await send("Where is my order?");
    const reports = await dispatcher.runOnce();
    expect(reports.map((report) => report.outcome)).toEqual(["delivered", "delivered", "delivered"]);
    expect(receiver.requests).toHaveLength(3);
    const verifier = new Webhook(subscription.secret);
    for (const request of receiver.requests) {
      expect(() => verifier.verify(request.body, request.headers)).not.toThrow();
      expect(request.headers["content-type"]).toBe("application/json");
      expect(request.headers["webhook-timestamp"]).toMatch(/^\d{10}$/);
    }
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers)).toThrow();
    const [started, received, sent] = bodiesByType(receiver.requests);
    expect(sent).toMatchObject({ type: "message.sent", data: { chatbot_id: chatbot.id, session_id: "visitor-1", role: "assistant", author: "model", content: "echo: Where is my order?" } });
    expect(Object.keys(received!)).toEqual(["type", "timestamp", "data"]);
    expect(started).toMatchObject({ type: "conversation.started", data: { chatbot_id: chatbot.id, session_id: "visitor-1" } });
    expect(received).toMatchObject({
      type: "message.received",
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/),
      data: { chatbot_id: chatbot.id, session_id: "visitor-1", role: "user", content: "Where is my order?", human_takeover: false },
    });
    expect(receiver.requests.map((request) => request.headers["webhook-id"]).sort()).toEqual((await deliveries()).map((delivery) => delivery.id).sort());
    expect((await deliveries()).every((delivery) => delivery.status === "delivered" && delivery.attempts === 1)).toBe(true);
  });

  it("sends an event again after 500, 500, then 200: three times with the same webhook-id and body", async () => {
    const receiver = await newReceiver();
    const { dispatcher, send, advanceSeconds, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"] });
    receiver.script(500, 500, 200);
    await send("hello");
    expect((await dispatcher.runOnce()).map((report) => report.outcome)).toEqual(["retry"]);
    advanceSeconds(60);
    expect((await dispatcher.runOnce()).map((report) => report.outcome)).toEqual(["retry"]);
    advanceSeconds(60);
    expect((await dispatcher.runOnce()).map((report) => report.outcome)).toEqual(["delivered"]);
    expect(receiver.requests).toHaveLength(3);
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
    expect(new Set(receiver.requests.map((request) => request.body)).size).toBe(1);
    expect(await deliveries()).toMatchObject([{ status: "delivered", attempts: 3, lastResponseStatus: 200, lastError: null }]);
  });

  it("waits out the backoff on the injected clock: nothing is sent before a retry is due", async () => {
    const receiver = await newReceiver();
    receiver.fallback = 503;
    const { dispatcher, send, advanceSeconds, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"] });
    await send("hello");
    const [first] = await dispatcher.runOnce();
    expect(first).toMatchObject({ outcome: "retry", responseStatus: 503, error: "HTTP 503" });
    // Jitter 0.5: half of the 5 s ceiling, then half of 30 s.
    const [pending] = await deliveries();
    expect(pending!.nextAttemptAt! - pending!.lastAttemptAt!).toBe(2_500_000);
    advanceSeconds(2.4);
    expect(await dispatcher.runOnce()).toEqual([]);
    advanceSeconds(0.2);
    expect(await dispatcher.runOnce()).toHaveLength(1);
    const [second] = await deliveries();
    expect(second!.nextAttemptAt! - second!.lastAttemptAt!).toBe(15_000_000);
    advanceSeconds(14.9);
    expect(await dispatcher.runOnce()).toEqual([]);
    expect(receiver.requests).toHaveLength(2);
  });

  it("retries for a day, then marks the delivery failed and keeps it", async () => {
    const receiver = await newReceiver();
    receiver.fallback = 500;
    const { dispatcher, send, clock, deliveries } = await setupWebhooks(receiver, { eventTypes: ["message.received"] });
    await send("hello");
    const outcomes = (await dispatcher.runOnce()).map((report) => report.outcome);
    const [created] = await deliveries();
    for (let round = 0; round < 50; round += 1) {
      const [delivery] = await deliveries();
      if (delivery!.status !== "pending") break;
      clock.set(delivery!.nextAttemptAt!);
      outcomes.push(...(await dispatcher.runOnce()).map((report) => report.outcome));
    }
    const [failed] = await deliveries();
    expect(failed).toMatchObject({ status: "failed", nextAttemptAt: null, lastResponseStatus: 500, lastError: "HTTP 500" });
    // The last attempt is held to the end of the day-long window, whatever the jitter.
    expect(failed!.lastAttemptAt! - created!.createdAt).toBeGreaterThanOrEqual(24 * 3600 * 1_000_000);
    expect(failed!.lastAttemptAt! - created!.createdAt).toBeLessThan(24 * 3600 * 1_000_000 + 1_000);
    expect(outcomes.at(-1)).toBe("failed");
    expect(outcomes.slice(0, -1).every((outcome) => outcome === "retry")).toBe(true);
    expect(receiver.requests.length).toBe(failed!.attempts);
  });

  it("sends a takeover message as message.received with human_takeover: true", async () => {
    const receiver = await newReceiver();
    const { dispatcher, send, parley, chatbot } = await setupWebhooks(receiver);
    await parley.admin.startTakeover(chatbot.id, "visitor-9");
    expect(await send("Is anyone there?", "visitor-9")).toMatchObject({ response: "", humanTakeover: true });
    await dispatcher.runOnce();
    expect(bodiesByType(receiver.requests)).toMatchObject([
      { type: "conversation.started", data: { session_id: "visitor-9" } },
      { type: "conversation.takeover_started", data: { session_id: "visitor-9" } },
      { type: "message.received", data: { session_id: "visitor-9", content: "Is anyone there?", human_takeover: true } },
    ]);
  });

  it("sends a subscription narrowed to one chatbot or to one event type only those events", async () => {
    const [anyType, botOnly, startsOnly] = [await newReceiver(), await newReceiver(), await newReceiver()];
    const { dispatcher, send, parley, user, chatbot } = await setupWebhooks(anyType);
    const other = await parley.admin.createChatbot({ userId: user.id, name: "Sales", provider: "openai", model: "gpt-test" });
    await parley.admin.createWebhookSubscription({ userId: user.id, url: botOnly.url, chatbotId: other.id });
    await parley.admin.createWebhookSubscription({ userId: user.id, url: startsOnly.url, eventTypes: ["conversation.started"] });
    await send("first bot", "visitor-1", chatbot.id);
    await send("second bot", "visitor-2", other.id);
    // Six deliveries to the first receiver: two rounds at four attempts in flight per subscription.
    await dispatcher.runOnce();
    await dispatcher.runOnce();
    const summary = (receiver: typeof anyType) => bodiesByType(receiver.requests).map((body) => `${body.type} ${String(body.data.chatbot_id === other.id ? "other" : "first")}`);
    expect(summary(anyType)).toHaveLength(6);
    expect(summary(botOnly).sort()).toEqual(["conversation.started other", "message.received other", "message.sent other"]);
    expect(summary(startsOnly).sort()).toEqual(["conversation.started first", "conversation.started other"]);
  });
});
