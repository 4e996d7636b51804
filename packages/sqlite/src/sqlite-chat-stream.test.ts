// The streamed chat of the core on SQLite: a reader that goes away must not lose the reply.
import { createLocalEmbedder, createParley } from "@parley/core";
import { createScriptedChatModel } from "@parley/core/memory";
import { describe, expect, test } from "vitest";
import { openDatabase } from "./database.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { closeAfterEach, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const nextPath = temporaryPaths();
const closeLater = closeAfterEach();

async function parleyOnFile(path: string) {
  const database = closeLater(openDatabase({ path }));
  const storage = createSqliteStorage({ database });
  const model = createScriptedChatModel({ provider: "openai" });
  const parley = createParley({ storage, searchIndex: createSqliteSearchIndex({ database }), embedder: createLocalEmbedder(), chatModels: { openai: model } });
  const user = await parley.admin.createUser({ email: "owner@example.com" });
  const caller = await parley.authenticate((await parley.admin.createApiKey({ userId: user.id })).key);
  const chatbot = await parley.admin.createChatbot({ userId: user.id, name: "Acme Helper", provider: "openai", model: "gpt-test" });
  await parley.admin.ingestDocument(chatbot.id, { source: "refunds.md", title: "Refund policy", text: "Refunds are issued within 14 days of purchase." });
  return { parley, model, caller, chatbot };
}

describe("chatStream on SQLite", () => {
  test("a reader that stops after the first delta still finds the whole reply, its sources and one message.sent in the database", async () => {
    const path = nextPath();
    const { parley, model, caller, chatbot } = await parleyOnFile(path);
    let openRest!: () => void;
    const rest = new Promise<void>((resolve) => (openRest = resolve));
    model.enqueue({ deltas: ["Refunds take ", rest, "up to ", "14 days."] });
    for await (const event of parley.chatStream(caller, chatbot.id, { message: "How long for a refund?", session_id: "closed-tab" })) {
      if (event.type === "delta") break;
    }
    openRest();
    await parley.whenRepliesSettled();

    // Read back through a second connection: the reply is in the file, not only in memory.
    const reader = closeLater(createSqliteStorage({ path }));
    const conversation = await reader.findConversation(chatbot.id, "closed-tab");
    const messages = await reader.listMessages(conversation!.id);
    expect(messages.map((message) => [message.author, message.content])).toEqual([
      ["end_user", "How long for a refund?"],
      ["model", "Refunds take up to 14 days."],
    ]);
    expect(messages[1]!.sources).toMatchObject([{ title: "Refund policy", source: "refunds.md", page: null }]);
    const sent = (await reader.listOutboxEvents({ limit: 100 })).filter((event) => event.type === "message.sent");
    expect(sent.map((event) => (event.data as { message_id: string }).message_id)).toEqual([messages[1]!.id]);
    expect(conversation!.needsAttention).toBe(false);
  });
});
