import type { Database } from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { createGroupCommit } from "./group-commit.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { closeAfterEach, seedChatbot, temporaryPaths } from "./sqlite-storage-test-fixtures.js";
import { commitCount, headerBuffer, openWalIndexHeader } from "./wal-index-header.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();

/** Reads how many commits the database at `path` has seen, through a connection of its own. */
function commitCounter(path: string): () => number {
  const header = track(openWalIndexHeader(track(openDatabase({ path })))!);
  const buffer = headerBuffer();
  return () => {
    header.read(buffer);
    return commitCount(buffer);
  };
}

/** A database with a table of unique names, and a group commit writing through IMMEDIATE transactions it counts. */
function namesDatabase(options: { busyTimeoutMs?: number } = {}) {
  const path = freshPath();
  const database = track(openDatabase({ path, ...options }));
  database.exec("CREATE TABLE names (name TEXT NOT NULL UNIQUE) STRICT");
  const transaction = database.transaction((step: () => unknown) => step());
  const transactions = { begun: 0 };
  const group = createGroupCommit(database, (step) => {
    transactions.begun++;
    return transaction.immediate(step) as ReturnType<typeof step>;
  });
  const insert = database.prepare("INSERT INTO names (name) VALUES (?)");
  const names = (connection: Database = database) => connection.prepare("SELECT name FROM names ORDER BY name").pluck().all() as string[];
  return { path, database, group, insert, names, transactions };
}

describe("group commit", () => {
  it("commits the steps of one turn of the event loop together, each resolving with its result after the commit", async () => {
    const { path, group, insert, names } = namesDatabase();
    const commits = commitCounter(path);
    const before = commits();
    const results = await Promise.all(["a", "b", "c"].map((name) => group.run(() => insert.run(name).changes)));
    expect(results).toEqual([1, 1, 1]);
    expect(commits()).toBe(before + 1);
    expect(names(track(openDatabase({ path })))).toEqual(["a", "b", "c"]);

    // A step of a later turn is a commit of its own.
    await group.run(() => insert.run("d"));
    expect(commits()).toBe(before + 2);
  });

  it("keeps the other steps of a group when one throws: each runs again alone, and only that one fails, with its own error", async () => {
    const { group, insert, names } = namesDatabase();
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run("a")),
      group.run(() => {
        insert.run("b");
        throw new Error("the builder failed");
      }),
      group.run(() => insert.run("a")), // the unique name: SQLite refuses this statement
      group.run(() => insert.run("c")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect(outcomes[1]).toMatchObject({ reason: { message: "the builder failed" } });
    expect(outcomes[2]).toMatchObject({ reason: { code: "SQLITE_CONSTRAINT_UNIQUE" } });
    expect(names()).toEqual(["a", "c"]);
  });

  it("runs no step outside a transaction when one ends it without throwing (as SQLite does on a full disk)", async () => {
    const { database, group, insert, names } = namesDatabase();
    const outcomes = await Promise.allSettled([
      group.run(() => insert.run("a")),
      group.run(() => {
        try {
          database.exec("ROLLBACK"); // what SQLite itself does on SQLITE_FULL or an I/O error
        } catch {
          // swallowed, as a careless step might
        }
      }),
      group.run(() => insert.run("c")),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(outcomes[1]).toMatchObject({ reason: { message: expect.stringMatching(/no transaction is active/) } });
    expect(names()).toEqual(["a", "c"]);
    expect(database.inTransaction).toBe(false);
  });

  it("rejects every step, having run none, when the transaction cannot begin: once, not once a step", async () => {
    const { path, group, insert, names, transactions } = namesDatabase({ busyTimeoutMs: 0 });
    const other = track(openDatabase({ path }));
    other.exec("BEGIN IMMEDIATE");
    const ran: string[] = [];
    const outcomes = await Promise.allSettled(["a", "b", "c"].map((name) => group.run(() => ran.push(name) && insert.run(name))));
    other.exec("ROLLBACK");
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(outcomes[0]).toMatchObject({ reason: { code: "SQLITE_BUSY" } });
    expect(ran).toEqual([]);
    expect(transactions.begun).toBe(1);
    expect(names()).toEqual([]);
  });

  it("runs the waiting steps at once when flushed (before a connection closes)", async () => {
    const { group, insert, names } = namesDatabase();
    const written = group.run(() => insert.run("a"));
    group.flush();
    expect(names()).toEqual(["a"]);
    await written;
  });
});

describe("the chat's writes in SQLite storage", () => {
  it("share one commit when they arrive in one turn, and the monthly quota stays exact among them", async () => {
    const path = freshPath();
    const storage = track(createSqliteStorage({ path }));
    const { input } = await seedChatbot(storage);
    const commits = commitCounter(path);
    const before = commits();
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, index) => storage.acceptUserMessage(input({ monthlyLimit: 3, sessionId: `session-${index}` }))),
    );
    expect(results.map((result) => result.accepted)).toEqual([true, true, true, false, false]);
    expect(commits()).toBe(before + 1);
    expect(await storage.getMonthlyUsage("user-1", "2026-11")).toBe(3);
  });

  it("store a reply whose events builder throws alone: the message accepted beside it is kept", async () => {
    const storage = track(createSqliteStorage({ path: freshPath() }));
    const { input } = await seedChatbot(storage);
    const first = await storage.acceptUserMessage(input({ sessionId: "first" }));
    if (!first.accepted) throw new Error("not accepted");
    const [second, reply] = await Promise.allSettled([
      storage.acceptUserMessage(input({ sessionId: "second" })),
      storage.appendAssistantMessage({
        id: "reply-1",
        conversationId: first.conversation.id,
        content: "Hello",
        author: "model",
        sources: [],
        needsAttention: false,
        at: first.message.createdAt + 1,
        conversation: first.conversation,
        events: () => {
          throw new Error("the events builder failed");
        },
      }),
    ]);
    expect(second.status).toBe("fulfilled");
    expect(reply).toMatchObject({ status: "rejected", reason: { message: "the events builder failed" } });
    expect((await storage.listMessages(first.conversation.id)).map((message) => message.role)).toEqual(["user"]);
    const accepted = second.status === "fulfilled" ? second.value : undefined;
    if (!accepted?.accepted) throw new Error("not accepted");
    expect((await storage.listMessages(accepted.conversation.id)).map((message) => message.content)).toEqual([accepted.message.content]);
  });
});
