import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replyWith } from "@parley/providers/testing";
import { call, environment, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  context = await environment();
});

afterAll(async () => {
  await context?.cleanup();
});

describe("graceful shutdown", () => {
  it("finishes a chat in flight, refuses new connections, then closes the database", async () => {
    const server = await serve(context.env);
    const { admin } = server.runtime.parley;
    const user = await admin.createUser({ email: "shutdown@example.com" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const bot = await admin.createChatbot({ userId: user.id, name: "Slow", provider: "openai", model: "gpt-test" });
    context.openai.chat.enqueue(replyWith("finished after the stop began", { delayMs: 400 }));

    const inFlight = call(`${server.url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "take your time" } });
    await new Promise((resolve) => setTimeout(resolve, 100)); // the request is now waiting on the model
    const stopped = server.running.stop();
    const response = await inFlight;
    expect(response).toMatchObject({ status: 200, json: { response: "finished after the stop began" } });
    await stopped;
    expect(server.runtime.database.open).toBe(false);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
