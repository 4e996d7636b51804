import { join } from "node:path";
import type { SearchIndex } from "@parley/core";
import { createPool, createPostgresSearchIndex, createPostgresStorage, createPostgresUploadStore } from "@parley/postgres";
import { createSqliteSearchIndex, createSqliteStorage, createSqliteUploadStore, openDatabase } from "@parley/sqlite";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { environment } from "./harness.js";
import { startTestPostgres, type TestPostgres } from "./test-postgres-url.js";
import { runCliHere } from "./webhook-test-support.js";

// `parley migrate --from PATH` moves an existing SQLite deployment to PostgreSQL (docs/scaling.md):
// onto the test server (PARLEY_TEST_DATABASE_URL, a schema of this file), else PGlite.

let context: Awaited<ReturnType<typeof environment>>;
let server: TestPostgres;
let pool: pg.Pool;

beforeAll(async () => {
  context = await environment({ PARLEY_SECRET_KEY: "a-master-key-shared-by-both-engines-here" });
  server = await startTestPostgres();
  pool = createPool({ url: server.url, poolSize: 2 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.stop();
  await context?.cleanup();
});

/** A file still waiting for its ingestion, over two parts of the SQLite upload store. */
const PENDING_UPLOAD = Buffer.from(Array.from({ length: 700 * 1024 }, (_, index) => index % 253));

/** A SQLite deployment with a bit of everything: keys, chatbots, a conversation with NUL in it, a webhook, knowledge. */
async function seedSqlite(path: string) {
  const runtime = openParley(loadConfig({ ...context.env, PARLEY_DB: path }));
  try {
    const { admin } = runtime.parley;
    const user = await admin.createUser({ email: "move@example.com" });
    const { key } = await admin.createApiKey({ userId: user.id, name: "backend", scope: "admin" });
    const bot = await admin.createChatbot({ userId: user.id, name: "Mover", provider: "openai", model: "gpt-test", systemPrompt: "Be brief.\u0000" });
    await admin.createChatbot({ userId: user.id, name: "Mover", provider: "openai", model: "gpt-test" });
    await admin.startTakeover(bot.id, "visitor\u00001");
    await admin.replyAsAgent(bot.id, "visitor\u00001", "Hello from an agent");
    // A key's read state: a position (seq) that PostgreSQL numbers afresh, so it must travel by message.
    const storage = createSqliteStorage({ database: runtime.database });
    const conversation = (await storage.findConversation(bot.id, "visitor\u00001"))!;
    const [read] = await storage.listMessages(conversation.id);
    await storage.markConversationRead({ apiKeyId: "reader-key", conversationId: conversation.id, upToMessageId: read!.id, at: 1 });
    await admin.createWebhookSubscription({ userId: user.id, url: "https://example.com/hook" });
    await admin.ingestDocuments(bot.id, [
      { source: "kettle.md", text: "# Descaling\n\nDescale the kettle every month with citric acid." },
      { source: "warranty.md", text: "The warranty lasts two years from purchase." },
    ]);
    // A model reply that cites the knowledge: its sources travel with it.
    const cited = await runtime.parley.chat({ user }, bot.id, { message: "How do I descale the kettle?", session_id: "cited" });
    if (cited.sources.length === 0) throw new Error("the seed reply should cite a document");
    await createSqliteUploadStore(runtime.database).save({ id: "pending-upload", chatbotId: bot.id, name: "manual.pdf", content: PENDING_UPLOAD, at: 1 });
    return { user, key, bot };
  } finally {
    runtime.close();
  }
}

describe("parley migrate --from", () => {
  it("copies a SQLite database into an empty PostgreSQL: every row, every chunk, the same answers", async () => {
    const path = join(context.folder, "old.db");
    const { user, bot } = await seedSqlite(path);
    const env = { ...context.env, PARLEY_DATABASE_URL: server.url };
    const result = await runCliHere(["migrate", "--from", path], env);
    expect(result.stderr).toBe("");
    expect(result.json).toMatchObject({ engine: "postgres", copied: { users: 1, api_keys: 1, chatbots: 2, conversations: 2, messages: 3, conversation_events: 1, conversation_reads: 1, webhook_subscriptions: 1, search_chunks: 2 } });

    const database = openDatabase({ path });
    try {
      const before = { storage: createSqliteStorage({ database }), search: createSqliteSearchIndex({ database }) };
      const after = { storage: createPostgresStorage({ pool }), search: createPostgresSearchIndex({ pool }) };
      for (const side of [before, after]) expect(await side.storage.getUser(user.id)).toEqual(await before.storage.getUser(user.id));
      expect(await after.storage.listChatbots(user.id)).toEqual(await before.storage.listChatbots(user.id));
      expect(await after.storage.listApiKeys(user.id)).toEqual(await before.storage.listApiKeys(user.id));
      const conversation = (await before.storage.findConversation(bot.id, "visitor\u00001"))!;
      expect(await after.storage.findConversation(bot.id, "visitor\u00001")).toEqual(conversation);
      expect(await after.storage.listMessages(conversation.id)).toEqual(await before.storage.listMessages(conversation.id));
      expect(await after.storage.listConversationEvents([conversation.id])).toEqual(await before.storage.listConversationEvents([conversation.id]));
      const [message] = await before.storage.listMessages(conversation.id);
      const { rows } = await pool.query("SELECT r.api_key_id, m.id FROM conversation_reads r JOIN messages m ON m.seq = r.last_read_seq");
      expect(rows).toEqual([{ api_key_id: "reader-key", id: message!.id }]);
      const cited = (await before.storage.findConversation(bot.id, "cited"))!;
      const citedMessages = await before.storage.listMessages(cited.id);
      expect(citedMessages[1]!.sources.map((source) => source.source)).toContain("kettle.md");
      expect(await after.storage.listMessages(cited.id)).toEqual(citedMessages);
      expect(await after.storage.listOutboxEvents({ limit: 100 })).toEqual(await before.storage.listOutboxEvents({ limit: 100 }));
      expect(await after.storage.listWebhookSubscriptions(user.id)).toEqual(await before.storage.listWebhookSubscriptions(user.id));
      expect(await after.search.listDocuments(bot.id, { limit: 10 })).toEqual(await before.search.listDocuments(bot.id, { limit: 10 }));
      const texts = async (side: { search: SearchIndex }) => (await side.search.keywordSearch(bot.id, "descale kettle warranty", 5)).map((hit) => [hit.source, hit.text]);
      expect(await texts(after)).toEqual(await texts(before));
      expect(await after.search.embeddingSpace(bot.id)).toEqual(await before.search.embeddingSpace(bot.id));
      // An upload kept in parts on SQLite arrives whole.
      const moved = await createPostgresUploadStore(pool).read("pending-upload");
      expect(moved === null ? null : Buffer.compare(Buffer.from(moved), PENDING_UPLOAD)).toBe(0);
    } finally {
      database.close();
    }

    // A second copy would mix two deployments: refused, and nothing changes.
    const again = await runCliHere(["migrate", "--from", path], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("parley migrate: PostgreSQL already holds data (1 users): --from copies into an empty database only.\n");
  }, 120_000);

  it("needs PARLEY_DATABASE_URL and an existing file", async () => {
    const noTarget = await runCliHere(["migrate", "--from", join(context.folder, "old.db")], context.env);
    expect(noTarget.stderr).toBe("parley migrate: --from copies into PostgreSQL: set PARLEY_DATABASE_URL.\n");
    const missing = await runCliHere(["migrate", "--from", join(context.folder, "nope.db")], { ...context.env, PARLEY_DATABASE_URL: server.url });
    expect(missing.stderr).toBe(`parley migrate: --from: no SQLite database at ${join(context.folder, "nope.db")}.\n`);
  }, 60_000);
});
