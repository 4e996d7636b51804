import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { request, startOperatorServer } from "./admin-test-support.js";
import { startReceiver } from "./webhook-test-support.js";

// Without PARLEY_ALLOW_PRIVATE_URLS, a webhook made through the operator API must be at a public
// address (docs/design.md §9); one made by the server's own operator with the CLI is not restricted.
let server: Awaited<ReturnType<typeof startOperatorServer>>;

beforeAll(async () => {
  server = await startOperatorServer({ env: { PARLEY_ALLOW_PRIVATE_URLS: "false" } });
});

afterAll(async () => {
  await server?.close();
});

describe("webhook URLs from the operator API", () => {
  it.each(["http://127.0.0.1:9/hook", "http://10.0.0.8/hook", "http://169.254.169.254/latest/meta-data", "http://[::1]:9/hook", "http://localhost:9/hook"])(
    "refuses %s, creating nothing",
    async (url) => {
      const answer = await request(`${server.url}/v1/admin/webhooks`, server.alice.adminKey, "POST", { url });
      expect(answer.status).toBe(422);
      expect(answer.json).toEqual({
        detail: "url: must be at a public address; this server sends no webhooks to loopback, private, link-local or metadata addresses unless PARLEY_ALLOW_PRIVATE_URLS=true",
      });
      expect((await request(`${server.url}/v1/admin/webhooks`, server.alice.adminKey, "GET")).json.data).toEqual([]);
    },
  );

  it("delivers to a private address a subscription made by the library's deployment owner (the CLI's door)", async () => {
    const receiver = await startReceiver();
    try {
      await server.runtime.parley.admin.createWebhookSubscription({ userId: server.alice.userId, url: receiver.url, eventTypes: ["message.received"] });
      server.runtime.dispatcher.start();
      const chat = await request(`${server.url}/v1/chatbots/${server.alice.botId}/chat`, server.alice.chatKey, "POST", { message: "hi", session_id: "s" });
      expect(chat.status).toBe(200);
      await expect.poll(() => receiver.requests.length, { timeout: 10_000 }).toBe(1);
    } finally {
      await receiver.close();
    }
  });
});
