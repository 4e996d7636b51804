import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, TIME, UUID, type OperatorServer } from "./admin-test-support.js";
import { startReceiver } from "./webhook-test-support.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});

describe("operator API: keys", () => {
  it("issues a key (201, shown once), lists keys without secrets, and revokes one at once (204)", async () => {
    const { api, alice } = server;
    const created = await api(alice.adminKey, "POST", "/v1/admin/keys", { name: "mobile app" });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(UUID),
      name: "mobile app",
      scope: "chat",
      current: false,
      created_at: expect.stringMatching(TIME),
      last_used_at: null,
      revoked_at: null,
      key: expect.stringMatching(/^prl_[A-Za-z0-9_-]{43}$/),
    });
    const admin = await api(alice.adminKey, "POST", "/v1/admin/keys", { scope: "admin" });
    expect(admin.json).toMatchObject({ name: "default", scope: "admin" });
    expect((await api(admin.json.key as string, "GET", "/v1/admin/usage")).status).toBe(200);

    // The new chat key works on the spec routes, which marks it used.
    expect((await api(created.json.key as string, "GET", "/v1/chatbots")).status).toBe(200);
    const listed = await api(alice.adminKey, "GET", "/v1/admin/keys");
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("prl_");
    expect(listed.json.next_cursor).toBeNull();
    expect(listed.json.data.map((key: { name: string }) => key.name)).toEqual(["default", "mobile app", "widget", "operator"]);
    expect(listed.json.data[1]).toEqual({ ...created.json, key: undefined, last_used_at: expect.stringMatching(TIME) });
    expect(Object.keys(listed.json.data[1]).sort()).toEqual(["created_at", "current", "id", "last_used_at", "name", "revoked_at", "scope"]);
    // Only the key making the call is marked current: the one a console would lock itself out with.
    expect(listed.json.data.filter((key: { current: boolean }) => key.current).map((key: { name: string }) => key.name)).toEqual(["operator"]);

    const revoked = await api(alice.adminKey, "DELETE", `/v1/admin/keys/${created.json.id as string}`);
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    const refused = await api(created.json.key as string, "GET", "/v1/chatbots");
    expect(refused.status).toBe(401);
    expect((await api(alice.adminKey, "GET", "/v1/admin/keys")).json.data[1]).toMatchObject({ id: created.json.id, revoked_at: expect.stringMatching(TIME) });
  });
});

describe("operator API: webhooks, deliveries and usage", () => {
  it("subscribes (201, secret once), lists deliveries by status, retries one, and unsubscribes (204)", async () => {
    const { api, bob, chat, runtime } = server;
    const receiver = await startReceiver(500, 500, 500);
    try {
      const created = await api(bob.adminKey, "POST", "/v1/admin/webhooks", { url: receiver.url, chatbot_id: bob.botId, events: ["message.sent"] });
      expect(created.status).toBe(201);
      expect(created.json).toEqual({
        id: expect.stringMatching(UUID),
        url: receiver.url,
        chatbot_id: bob.botId,
        events: ["message.sent"],
        created_at: expect.stringMatching(TIME),
        secret: expect.stringMatching(/^whsec_/),
      });
      const listed = await api(bob.adminKey, "GET", "/v1/admin/webhooks");
      expect(listed.json).toEqual({ data: [{ ...created.json, secret: undefined }], next_cursor: null });
      expect(listed.text).not.toContain("whsec_");

      await chat(bob, "hooked", "Hello");
      // Only message.sent is subscribed: one delivery, which the receiver refuses with a 500.
      await runtime.dispatcher.runOnce();
      const deliveries = await api(bob.adminKey, "GET", "/v1/admin/webhook-deliveries");
      expect(deliveries.status).toBe(200);
      expect(deliveries.json).toEqual({
        data: [
          {
            id: expect.stringMatching(UUID),
            webhook_id: created.json.id,
            event_id: expect.any(String),
            event_type: "message.sent",
            status: "pending",
            attempts: 1,
            last_status: 500,
            next_attempt_at: expect.stringMatching(TIME),
            created_at: expect.stringMatching(TIME),
          },
        ],
        next_cursor: null,
      });
      expect((await api(bob.adminKey, "GET", "/v1/admin/webhook-deliveries?status=delivered")).json).toEqual({ data: [], next_cursor: null });
      const delivery = deliveries.json.data[0] as { id: string; next_attempt_at: string };
      const retried = await api(bob.adminKey, "POST", `/v1/admin/webhook-deliveries/${delivery.id}/retry`);
      expect(retried.status).toBe(200);
      expect(retried.json).toMatchObject({ id: delivery.id, status: "pending", attempts: 1 });
      expect(retried.json.next_attempt_at <= delivery.next_attempt_at).toBe(true);

      const removed = await api(bob.adminKey, "DELETE", `/v1/admin/webhooks/${created.json.id as string}`);
      expect(removed.status).toBe(204);
      expect(removed.text).toBe("");
      expect((await api(bob.adminKey, "GET", "/v1/admin/webhooks")).json).toEqual({ data: [], next_cursor: null });
      // The deliveries of a removed subscription stay listed, failed, and cannot be retried.
      const kept = await api(bob.adminKey, "GET", "/v1/admin/webhook-deliveries?status=failed");
      expect(kept.json.data.map((row: { id: string }) => row.id)).toEqual([delivery.id]);
      const gone = await api(bob.adminKey, "POST", `/v1/admin/webhook-deliveries/${delivery.id}/retry`);
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({ detail: "Delivery not found." });
    } finally {
      await receiver.close();
    }
  });

  it("reports this month's usage: plan, limit, used, remaining, reset time, per chatbot and per day", async () => {
    const { api, alice, bob, chat } = server;
    const before = (await api(alice.adminKey, "GET", "/v1/admin/usage")).json as { used: number };
    await chat(alice, "usage-1", "One");
    await chat(alice, "usage-2", "Two");
    await chat(bob, "usage-3", "Someone else's");
    const usage = await api(alice.adminKey, "GET", "/v1/admin/usage");
    expect(usage.status).toBe(200);
    const now = new Date();
    const month = now.toISOString().slice(0, 7);
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    expect(usage.json).toEqual({
      plan: "free",
      limit: 1000,
      used: before.used + 2,
      remaining: 1000 - before.used - 2,
      month,
      resets_at: `${next.toISOString().slice(0, 10)}T00:00:00.000000+00:00`,
      by_chatbot: [{ chatbot_id: alice.botId, messages: before.used + 2 }],
      by_day: [{ date: now.toISOString().slice(0, 10), messages: before.used + 2 }],
      // No reply of this month has been rated yet (the ratings are counted in admin-widget.test.ts).
      feedback_by_chatbot: [],
    });
  });
});
