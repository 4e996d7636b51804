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
    // The fake model reports the request's arrival, and answers only once the test releases it.
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    context.openai.chat.respondWith(() => {
      arrived();
      return replyWith("finished after the stop began", { until: released });
    });

    const inFlight = call(`${server.url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "take your time" } });
    await received; // the chat is now waiting on the model
    let stopFinished = false;
    const stopped = server.running.stop().then(() => (stopFinished = true));
    // While the stop waits for the chat: no new connection, the database still open.
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
    expect(stopFinished).toBe(false);
    expect(server.runtime.database.open).toBe(true);
    release();
    const response = await inFlight;
    expect(response).toMatchObject({ status: 200, json: { response: "finished after the stop began" } });
    await stopped;
    expect(server.runtime.database.open).toBe(false);
    await expect(fetch(`${server.url}/healthz`)).rejects.toThrow();
  });
});
