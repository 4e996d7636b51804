import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, serveCli } from "./harness.js";
import { runCliHere, startReceiver } from "./webhook-test-support.js";

let context: Awaited<ReturnType<typeof environment>>;
beforeAll(async () => {
  context = await environment();
});
afterAll(async () => {
  await context?.cleanup();
});

describe("parley serve and webhooks", () => {
  it("delivers signed events of a chat through the API, and stops its dispatcher on SIGTERM", async () => {
    const cli = (...args: string[]) => runCliHere(args, context.env).then((result) => result.json!);
    const user = await cli("user", "create", "--email", "serve-hooks@example.com");
    const { key } = await cli("key", "create", "--user", user.id as string);
    const bot = await cli("bot", "create", "--user", user.id as string, "--name", "Hooked", "--provider", "openai", "--model", "gpt-test");
    const receiver = await startReceiver();
    const { secret } = await cli("webhook", "add", "--user", user.id as string, "--url", receiver.url);

    const server = await serveCli(context.env);
    try {
      const { url } = server;
      const chat = await call(`${url}/v1/chatbots/${bot.id as string}/chat`, { key: key as string, body: { message: "Do you ship to Norway?", session_id: "visitor-7" } });
      expect(chat.status).toBe(200);
      // The chat committed the events; the bus wakes the dispatcher, which posts them at once.
      await expect.poll(() => receiver.requests.length, { timeout: 5_000, interval: 20 }).toBe(3);
      const verifier = new Webhook(secret as string);
      // All are posted at once, so they may arrive in any order.
      const bodies = receiver.requests.map((request) => verifier.verify(request.body, request.headers) as { type: string }).sort((a, b) => a.type.localeCompare(b.type));
      expect(bodies).toMatchObject([
        { type: "conversation.started", data: { chatbot_id: bot.id, session_id: "visitor-7" } },
        { type: "message.received", data: { content: "Do you ship to Norway?", human_takeover: false } },
        { type: "message.sent", data: { session_id: "visitor-7", role: "assistant", author: "model", content: (chat.json as { response: string }).response } },
      ]);
    } finally {
      server.stop();
    }
    expect(await server.exited).toBe(0);
    await receiver.close();
    const delivered = (await cli("webhook", "deliveries", "--status", "delivered")).deliveries as unknown[];
    expect(delivered).toHaveLength(3);
  }, 60_000);
});
