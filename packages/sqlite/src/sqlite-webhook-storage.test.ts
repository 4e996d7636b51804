import { readFileSync } from "node:fs";
import BetterSqlite3 from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { migrate, openDatabase } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { closeAfterEach, seedChatbot, START, temporaryPaths } from "./sqlite-storage-test-fixtures.js";
import { prepareWebhookStatements } from "./sqlite-webhook-statements.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const SECOND = 1_000_000;

describe("SQLite webhook deliveries", () => {
  it("never lets two connections on one file claim the same attempt", async () => {
    const path = freshPath();
    const [first, second] = [track(createSqliteStorage({ path })), track(createSqliteStorage({ path }))];
    const { user, input } = await seedChatbot(first);
    await first.createWebhookSubscription({ id: "hook-1", userId: user.id, url: "https://a.example", chatbotId: null, eventTypes: [], signingKeyId: "k", publicOnly: false, createdAt: START });
    for (let message = 0; message < 20; message += 1) await first.acceptUserMessage(input());
    let sequence = 0;
    const newId = () => `delivery-${++sequence}`;
    // Both fan out too: each event still becomes exactly one delivery.
    await Promise.all([first, second].map((storage) => storage.fanOutOutboxEvents({ limit: 7, at: START + SECOND, newId })));
    await Promise.all([first, second].map((storage) => storage.fanOutOutboxEvents({ limit: 20, at: START + SECOND, newId })));
    const claims = { now: START + 2 * SECOND, limit: 3, perSubscriptionLimit: 10, skipSubscriptionIds: [], leaseUntil: START + 60 * SECOND };
    const claimed: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const batches = await Promise.all([first.claimDueDeliveries(claims), second.claimDueDeliveries(claims)]);
      claimed.push(...batches.flat().map((item) => item.delivery.id));
    }
    expect(claimed).toHaveLength(20);
    expect(new Set(claimed).size).toBe(20);
  });

  it("finds due deliveries and undispatched events through their partial indexes", () => {
    const database = track(openDatabase({ path: freshPath() }));
    const statements = prepareWebhookStatements(database);
    const plan = (source: string, parameters: Record<string, unknown> | unknown[]) =>
      (database.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...(Array.isArray(parameters) ? parameters : [parameters])) as { detail: string }[]).map((row) => row.detail);
    expect(plan(statements.undispatchedEvents.source, [1]).join("\n")).toContain("outbox_events_pending");
    expect(plan(statements.dueDeliveries.source, { now: 0, skip: "[]", per_subscription: 1, limit: 1 }).join("\n")).toContain("webhook_deliveries_due");
    expect(plan(statements.listDeliveriesByStatus.source, { status: "failed", before_seq: null, limit: 1 }).join("\n")).toContain("webhook_deliveries_by_status");
    expect(plan(statements.listUserDeliveries.source, { status: null, user_id: "u", before_seq: null, limit: 1 }).join("\n")).toContain("webhook_deliveries_by_user");
  });

  it("drops the signing secrets of an older database from the file when it upgrades", async () => {
    const path = freshPath();
    const old = new BetterSqlite3(path);
    old.pragma("journal_mode = WAL");
    migrate(old, MIGRATIONS.slice(0, 2));
    old.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('free', 10)").run();
    old.prepare("INSERT INTO users (id, email, email_key, plan_name, created_at) VALUES ('user-1', 'a@b.c', 'a@b.c', 'free', 0)").run();
    // Enough rows to split the table's pages: page splits leave stale copies of rows behind.
    const insert = old.prepare(
      `INSERT INTO webhook_subscriptions (id, user_id, url, event_types, secret, created_at) VALUES (?, 'user-1', 'https://a.example', '[]', ?, ?)`,
    );
    for (let index = 0; index < 100; index += 1) insert.run(`hook-${index}`, `whsec_${Buffer.alloc(32, index).toString("base64")}`, index);
    old.close();
    expect(readFileSync(path).includes("whsec_")).toBe(true);

    const storage = createSqliteStorage({ path });
    // Kept, but under no key: the dispatcher reports a key mismatch until they are re-created.
    const kept = await storage.listWebhookSubscriptions("user-1");
    expect(kept).toHaveLength(100);
    expect(kept[0]).toMatchObject({ id: "hook-0", url: "https://a.example", signingKeyId: "" });
    await storage.close();
    expect(readFileSync(path).includes("whsec_")).toBe(false);
  });
});
