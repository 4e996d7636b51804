// A streamed reply whose reader has gone belongs to the core, and the server's shutdown waits for
// it: the reply is in the database file after `stop()`, not lost with the process.
import { createSqliteStorage } from "@parley/sqlite";
import { streamWith } from "@parley/providers/testing";
import { afterEach, expect, test } from "vitest";
import { environment, serve } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

test("stopping the server stores a streamed reply that nobody reads any more before it closes the database", async () => {
  const context = await environment();
  cleanups.push(context.cleanup);
  const { runtime, running } = await serve(context.env);
  const { admin } = runtime.parley;
  const user = await admin.createUser({ email: "owner@example.com" });
  const caller = await runtime.parley.authenticate((await admin.createApiKey({ userId: user.id })).key);
  const chatbot = await admin.createChatbot({ userId: user.id, name: "Acme", provider: "openai", model: "gpt-test" });

  // The provider writes the rest of the reply only once the server has stopped taking requests.
  const serverClosed = new Promise<void>((resolve) => running.server.once("close", () => resolve()));
  context.openai.chat.enqueue(streamWith(["Stored ", serverClosed, "after the stop."]));
  for await (const event of runtime.parley.chatStream(caller, chatbot.id, { message: "hello", session_id: "leaving" })) {
    if (event.type === "delta") break; // the reader goes away
  }
  await running.stop();

  const storage = createSqliteStorage({ path: context.env.PARLEY_DB! });
  cleanups.push(() => storage.close());
  const conversation = await storage.findConversation(chatbot.id, "leaving");
  expect((await storage.listMessages(conversation!.id)).map((message) => message.content)).toEqual(["hello", "Stored after the stop."]);
});

test("a reply still being generated past the shutdown's grace is given up cleanly: nothing of it stored, the conversation needs an agent", async () => {
  // The provider falls silent, and its deadline (an hour) is far beyond the test's: only the
  // shutdown's 100 ms grace can end the generation, and without it stop() never finishes.
  const context = await environment({ PARLEY_LLM_TIMEOUT_MS: "3600000" });
  cleanups.push(context.cleanup);
  const { runtime, running } = await serve(context.env);
  const { admin } = runtime.parley;
  const user = await admin.createUser({ email: "owner@example.com" });
  const caller = await runtime.parley.authenticate((await admin.createApiKey({ userId: user.id })).key);
  const chatbot = await admin.createChatbot({ userId: user.id, name: "Acme", provider: "openai", model: "gpt-test" });
  context.openai.chat.enqueue(streamWith(["Never "], { end: "hang" }));
  for await (const event of runtime.parley.chatStream(caller, chatbot.id, { message: "hello", session_id: "stuck" })) {
    if (event.type === "delta") break;
  }
  await running.stop(100);

  const storage = createSqliteStorage({ path: context.env.PARLEY_DB! });
  cleanups.push(() => storage.close());
  const conversation = await storage.findConversation(chatbot.id, "stuck");
  expect((await storage.listMessages(conversation!.id)).map((message) => message.content)).toEqual(["hello"]);
  expect(conversation!.needsAttention).toBe(true);
});
