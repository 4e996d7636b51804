import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runStorageContract } from "@parley/core/contract";
import { migrate, openDatabase, schemaVersion } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { prepareStorageStatements } from "./sqlite-storage-statements.js";
import { prepareWebhookStatements } from "./sqlite-webhook-statements.js";
import { START, accepted, closeAfterEach, seedChatbot, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();

// On a file, not :memory:, so the contract runs with WAL and real locking.
runStorageContract({ create: () => createSqliteStorage({ path: freshPath() }) });

/** The steps SQLite's planner chose for a statement; parameters only matter at run time. */
function queryPlan(database: BetterSqlite3.Database, source: string): string[] {
  const names = [...new Set(Array.from(source.matchAll(/@(\w+)/g), (match) => match[1]!))];
  const parameters = names.length > 0 ? [Object.fromEntries(names.map((name) => [name, null]))] : Array.from(source.matchAll(/\?/g), () => null);
  const rows = database.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...parameters) as { detail: string }[];
  return rows.map((row) => row.detail);
}

describe("SQLite storage", () => {
  it("records every migration in schema_version", () => {
    const database = track(openDatabase({ path: freshPath() }));
    const rows = database.prepare("SELECT version, name FROM schema_version ORDER BY version").all();
    expect(rows).toEqual(MIGRATIONS.map((migration) => ({ version: migration.version, name: migration.name })));
    expect(rows[0]).toEqual({ version: 1, name: "storage" });
  });

  it("keeps its data when the file is closed and opened again", async () => {
    const path = freshPath();
    const first = createSqliteStorage({ path });
    const { chatbot, input } = await seedChatbot(first);
    const result = accepted(await first.acceptUserMessage(input()));
    await first.close();
    const second = track(createSqliteStorage({ path }));
    expect(await second.getChatbot(chatbot.id)).toEqual(chatbot);
    expect(await second.getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(1);
    expect(await second.listMessages(result.conversation.id)).toEqual([result.message]);
    expect(await second.listOutboxEvents({ limit: 10 })).toEqual(result.events);
  });

  it("refuses a database written by a newer schema, with a message saying so", () => {
    const path = freshPath();
    const database = openDatabase({ path });
    database.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 0)").run();
    database.close();
    expect(() => openDatabase({ path })).toThrow(/schema version 99, newer than the \d+ this version of Parley knows\. Upgrade Parley/);
  });

  it("upgrades a version-1 database to the latest schema, keeping its data", () => {
    const path = freshPath();
    // A database as a Parley that only knew migration 1 left it.
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 1));
    old.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('legacy', 7)").run();
    old.close();
    const upgraded = track(openDatabase({ path }));
    expect(schemaVersion(upgraded)).toBe(MIGRATIONS.at(-1)!.version);
    expect(upgraded.prepare("SELECT monthly_messages FROM plans WHERE name = 'legacy'").get()).toEqual({ monthly_messages: 7 });
  });

  it("rolls the whole step back when a write fails halfway", async () => {
    const storage = track(createSqliteStorage({ path: freshPath() }));
    const { chatbot, input } = await seedChatbot(storage);
    const first = accepted(await storage.acceptUserMessage(input()));
    // Writing the first call's event again breaks the outbox's unique id: the last write of
    // the step fails after the usage, conversation and message writes have run.
    const failing = input({ sessionId: "another-session", events: () => first.events });
    await expect(storage.acceptUserMessage(failing)).rejects.toThrow(/UNIQUE constraint failed: outbox_events.id/);
    expect(await storage.findConversation(chatbot.id, "another-session")).toBeNull();
    expect(await storage.getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(1);
    expect(await storage.listOutboxEvents({ limit: 10 })).toEqual(first.events);
  });

  it("refuses with conflict to restore a deleted chatbot whose slug was reused since", async () => {
    const storage = track(createSqliteStorage({ path: freshPath() }));
    const { chatbot } = await seedChatbot(storage);
    await storage.updateChatbot(chatbot.id, { deletedAt: START + 1 });
    const successor = await storage.createChatbot({ ...chatbot, id: "bot-2", deletedAt: null }, "support");
    expect(successor.slug).toBe("support");
    // The partial unique index keeps live slugs unique; the adapter reports it as a conflict.
    await expect(storage.updateChatbot(chatbot.id, { deletedAt: null })).rejects.toMatchObject({ code: "conflict" });
    expect((await storage.getChatbot(chatbot.id))?.deletedAt).toBe(START + 1);
  });

  it("closes a database it opened from a path, but not one it was given", async () => {
    const given = track(openDatabase({ path: freshPath() }));
    await createSqliteStorage({ database: given }).close();
    expect(given.open).toBe(true);
    const path = freshPath();
    const owning = createSqliteStorage({ path });
    await owning.close();
    await expect(owning.getPlan("free")).rejects.toThrow(/database connection is not open/);
  });

  it("answers every hot lookup from an index, without a table scan or a sort", () => {
    const database = track(openDatabase({ path: freshPath() }));
    const statements = prepareStorageStatements(database);
    const hotLookups = [
      statements.getApiKeyByHash, statements.listChatbots, statements.findConversation,
      statements.recentMessages, statements.getMonthlyUsage, statements.liveSlugsFrom,
    ];
    // What the webhook dispatcher asks on every pass: the oldest events not yet dispatched.
    const pending = prepareWebhookStatements(database).undispatchedEvents;
    for (const source of [...hotLookups, pending].map((statement) => statement.source)) {
      const details = queryPlan(database, source);
      // SEARCH … USING is an index lookup (walking the partial index of pending rows is too);
      // a SCAN of a table or a "USE TEMP B-TREE" sort would grow with the data.
      const indexed = /^SEARCH \w+ USING (COVERING INDEX|INDEX|PRIMARY KEY)|^SCAN outbox_events USING INDEX outbox_events_pending/;
      const slow = details.filter((detail) => !indexed.test(detail));
      expect({ source, slow }).toEqual({ source, slow: [] });
      expect(details.length).toBeGreaterThan(0);
    }
  });

  it("stores every timestamp as an integer", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    const storage = createSqliteStorage({ database });
    const { chatbot, input, user } = await seedChatbot(storage);
    await storage.createApiKey({ id: "key-1", userId: user.id, name: "ci", keyHash: "f".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    await storage.revokeApiKey("key-1", START + 1);
    await storage.updateChatbot(chatbot.id, { deletedAt: START + 2 });
    await storage.acceptUserMessage(input());
    await storage.createWebhookSubscription({ id: "hook-1", userId: user.id, url: "https://example.com", chatbotId: null, eventTypes: [], signingKeyId: "0123456789abcdef", publicOnly: false, createdAt: START });
    const columns = [
      ["users", "created_at"], ["api_keys", "created_at"], ["api_keys", "revoked_at"], ["chatbots", "created_at"], ["chatbots", "deleted_at"],
      ["conversations", "created_at"], ["messages", "created_at"], ["outbox_events", "created_at"], ["webhook_subscriptions", "created_at"],
    ];
    for (const [table, column] of columns) {
      const types = database.prepare(`SELECT DISTINCT typeof(${column}) AS type FROM ${table}`).pluck().all();
      expect({ table, column, types }).toEqual({ table, column, types: ["integer"] });
    }
    // STRICT tables refuse a fractional time instead of storing it.
    expect(() => database.prepare("UPDATE users SET created_at = 1.5").run()).toThrow(/cannot store REAL value in INTEGER column/);
  });

  it("marks unanswered conversations in slices of rowids, none left out at a slice's edge", async () => {
    const storage = track(createSqliteStorage({ path: freshPath() }));
    const { input } = await seedChatbot(storage);
    // 2,001 conversations span two slices of 2,000: the last one is past the first slice's edge.
    for (let index = 0; index < 2_001; index += 1) accepted(await storage.acceptUserMessage(input({ sessionId: `visitor-${index}`, monthlyLimit: 10_000 })));
    expect(await storage.markUnansweredConversations({ before: START + 10_000, at: START + 10_000 })).toBe(2_001);
    expect(await storage.listConversations({ ownerId: "user-1", status: "attention", limit: 10_000 })).toHaveLength(2_001);
  }, 60_000);
});
