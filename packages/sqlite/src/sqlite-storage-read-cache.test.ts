import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { createReadCache, keepingReadCaches } from "./sqlite-storage-read-cache.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { START, accepted, closeAfterEach, seedChatbot, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();
const KEY_HASH = "a".repeat(64);

/** Two storages on one file, as `parley serve` and a `parley` CLI command are: a user, a key, a chatbot. */
async function twoConnections() {
  const path = freshPath();
  const server = track(createSqliteStorage({ path }));
  const cli = track(createSqliteStorage({ path }));
  const { user, chatbot, input } = await seedChatbot(cli);
  const apiKey = await cli.createApiKey({ id: "key-1", userId: user.id, name: "ci", keyHash: KEY_HASH, scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
  return { path, server, cli, user, chatbot, apiKey, input };
}

describe("SQLite storage read cache", () => {
  it("sees a key revoked by another connection on the very next lookup", async () => {
    const { server, cli, apiKey } = await twoConnections();
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBeNull();
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBeNull(); // now from the cache
    await cli.revokeApiKey(apiKey.id, START + 5);
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBe(START + 5);
  });

  it("sees a chatbot paused, renamed or deleted by another connection at once, in the detail and the list", async () => {
    const { server, cli, chatbot, user } = await twoConnections();
    expect(await server.getChatbot(chatbot.id)).toEqual(chatbot);
    expect(await server.listChatbots(user.id)).toEqual([chatbot]);
    await cli.updateChatbot(chatbot.id, { isActive: false, name: "Paused" });
    expect(await server.getChatbot(chatbot.id)).toMatchObject({ isActive: false, name: "Paused" });
    expect(await server.listChatbots(user.id)).toMatchObject([{ isActive: false, name: "Paused" }]);
    await cli.updateChatbot(chatbot.id, { deletedAt: START + 9 });
    expect(await server.listChatbots(user.id)).toEqual([]);
    expect((await server.getChatbot(chatbot.id))?.deletedAt).toBe(START + 9);
  });

  it("sees a user's new plan override and a new chatbot written by another connection", async () => {
    const { path, server, cli, chatbot, user } = await twoConnections();
    expect((await server.findApiKeyByHash(KEY_HASH))?.user.monthlyMessagesOverride).toBeNull();
    // A raw write on a third connection, as an operator's sqlite3 shell would make.
    const shell = track(openDatabase({ path }));
    shell.prepare("UPDATE users SET monthly_messages_override = 5 WHERE id = ?").run(user.id);
    expect((await server.findApiKeyByHash(KEY_HASH))?.user.monthlyMessagesOverride).toBe(5);
    await server.listChatbots(user.id);
    const second = await cli.createChatbot({ ...chatbot, id: "bot-2", createdAt: START + 1 }, "support");
    expect((await server.listChatbots(user.id)).map((bot) => bot.id)).toEqual([second.id, chatbot.id]);
  });

  it("sees its own writes, including raw ones on its database handle", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    const storage = createSqliteStorage({ database });
    const { user } = await seedChatbot(storage);
    await storage.createApiKey({ id: "key-1", userId: user.id, name: "ci", keyHash: KEY_HASH, scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    expect((await storage.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBeNull();
    await storage.revokeApiKey("key-1", START + 1);
    expect((await storage.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBe(START + 1);
    database.prepare("UPDATE api_keys SET name = 'renamed'").run();
    expect((await storage.findApiKeyByHash(KEY_HASH))?.apiKey.name).toBe("renamed");
  });

  it("shows a key's last use at once after a touch, which keeps the rest of the cache", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    const storage = createSqliteStorage({ database });
    const { user } = await seedChatbot(storage);
    await storage.createApiKey({ id: "key-1", userId: user.id, name: "ci", keyHash: KEY_HASH, scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    expect((await storage.findApiKeyByHash(KEY_HASH))?.apiKey.lastUsedAt).toBeNull(); // now cached
    await storage.touchApiKey("key-1", START + 60);
    expect((await storage.findApiKeyByHash(KEY_HASH))?.apiKey.lastUsedAt).toBe(START + 60);
    expect((await storage.getApiKey("key-1"))?.lastUsedAt).toBe(START + 60);
    // A touch of a key never looked up caches it with its new last use.
    await storage.createApiKey({ id: "key-2", userId: user.id, name: "ci", keyHash: "b".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    await storage.touchApiKey("key-2", START + 70);
    expect((await storage.findApiKeyByHash("b".repeat(64)))?.apiKey.lastUsedAt).toBe(START + 70);
  });

  it("writes touches together, not a commit each: before a read of the key rows or on close", async () => {
    const { path, server, cli, user } = await twoConnections();
    await cli.createApiKey({ id: "key-2", userId: user.id, name: "ci", keyHash: "b".repeat(64), scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    const shell = track(openDatabase({ path }));
    const lastUses = () => shell.prepare("SELECT id, last_used_at FROM api_keys ORDER BY id").all();
    await server.touchApiKey("key-1", START + 60);
    await server.touchApiKey("key-2", START + 61);
    await server.touchApiKey("key-1", START + 62);
    // Not written yet (the server's own lookups already see them)…
    expect(lastUses()).toEqual([{ id: "key-1", last_used_at: null }, { id: "key-2", last_used_at: null }]);
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.lastUsedAt).toBe(START + 62);
    // …then written, the latest of each, once the server reads the rows.
    expect((await server.getApiKey("key-2"))?.lastUsedAt).toBe(START + 61);
    expect(lastUses()).toEqual([{ id: "key-1", last_used_at: START + 62 }, { id: "key-2", last_used_at: START + 61 }]);
    await server.touchApiKey("key-2", START + 70);
    await server.close();
    expect(lastUses()).toEqual([{ id: "key-1", last_used_at: START + 62 }, { id: "key-2", last_used_at: START + 70 }]);
  });

  it("answers lookups correctly after the chat's own writes, kept or rolled back", async () => {
    const { server, input, chatbot } = await twoConnections();
    const first = accepted(await server.acceptUserMessage(input()));
    await server.appendAssistantMessage({ id: "reply-1", conversationId: first.conversation.id, content: "Hi", author: "model", at: START + 100, needsAttention: false, events: () => [] });
    expect(await server.getChatbot(chatbot.id)).toEqual(chatbot);
    await expect(server.acceptUserMessage(input({ sessionId: "other", events: () => first.events }))).rejects.toThrow(/UNIQUE/);
    expect(await server.getChatbot(chatbot.id)).toEqual(chatbot);
  });

  it("sees a key revoked by another connection in the next request, when requests mark their start", async () => {
    const { server, cli, apiKey } = await twoConnections();
    server.requestStarted();
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBeNull();
    await cli.revokeApiKey(apiKey.id, START + 5);
    server.requestStarted();
    expect((await server.findApiKeyByHash(KEY_HASH))?.apiKey.revokedAt).toBe(START + 5);
  });

  it("keeps two storages on one handle apart: one's batched touches reach the other's cache", async () => {
    const database = track(openDatabase({ path: freshPath() }));
    const first = createSqliteStorage({ database });
    const second = createSqliteStorage({ database });
    const { user } = await seedChatbot(first);
    await first.createApiKey({ id: "key-1", userId: user.id, name: "ci", keyHash: KEY_HASH, scope: "chat" as const, createdAt: START, revokedAt: null, lastUsedAt: null });
    expect((await second.findApiKeyByHash(KEY_HASH))?.apiKey.lastUsedAt).toBeNull(); // cached by the second
    await first.touchApiKey("key-1", START + 60);
    await first.getApiKey("key-1"); // writes the first's pending touches
    expect((await second.findApiKeyByHash(KEY_HASH))?.apiKey.lastUsedAt).toBe(START + 60);
    await first.close();
    await second.close();
  });

  it("hands out copies: changing a returned value does not change the cache", async () => {
    const { server, chatbot, user } = await twoConnections();
    const found = await server.findApiKeyByHash(KEY_HASH);
    found!.user.planName = "changed";
    found!.apiKey.revokedAt = 1;
    (await server.getChatbot(chatbot.id))!.name = "changed";
    (await server.listChatbots(user.id))[0]!.isActive = false;
    expect(await server.findApiKeyByHash(KEY_HASH)).toMatchObject({ user: { planName: "free" }, apiKey: { revokedAt: null } });
    expect(await server.getChatbot(chatbot.id)).toEqual(chatbot);
    expect(await server.listChatbots(user.id)).toEqual([chatbot]);
  });
});

describe("createReadCache", () => {
  /** A cache on a fresh database, and a map whose loads are counted. */
  function countedMap(maxEntries = 100) {
    const database = track(openDatabase({ path: freshPath() }));
    const cache = createReadCache(database);
    const map = cache.map<string>(maxEntries);
    const loads: string[] = [];
    const get = (key: string, value: string | null = `value of ${key}`) =>
      map.get(key, () => {
        loads.push(key);
        return value;
      });
    return { database, cache, map, loads, get };
  }

  it("learns of other connections' commits from the wal-index header of a file, from PRAGMA data_version in memory", () => {
    expect(countedMap().cache.watching).toBe("wal-index header");
    expect(createReadCache(track(openDatabase({ path: ":memory:" }))).watching).toBe("data_version");
  });

  it("loads each key once while the database does not change", () => {
    const { get, loads } = countedMap();
    expect([get("a"), get("a"), get("b"), get("a")]).toEqual(["value of a", "value of a", "value of b", "value of a"]);
    expect(loads).toEqual(["a", "b"]);
  });

  it("empties itself after a write on its connection, unless the write ran through keepingCache", () => {
    const { database, cache, get, loads } = countedMap();
    get("a");
    cache.keepingCache(() => database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('kept', 1)").run());
    get("a");
    expect(loads).toEqual(["a"]);
    database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('other', 1)").run();
    get("a");
    expect(loads).toEqual(["a", "a"]);
  });

  it("still empties itself for an earlier write when a keepingCache step follows it", () => {
    const { database, cache, get, loads } = countedMap();
    get("a");
    database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('unexplained', 1)").run();
    cache.keepingCache(() => database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('kept', 1)").run());
    get("a");
    expect(loads).toEqual(["a", "a"]);
  });

  it("empties itself when another connection commits", () => {
    const { database, get, loads } = countedMap();
    get("a");
    const other = track(openDatabase({ path: database.name }));
    other.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('elsewhere', 1)").run();
    get("a");
    expect(loads).toEqual(["a", "a"]);
  });

  it("empties itself for another connection's commit made before or during a step of its own that it keeps", () => {
    const { database, cache, get, loads } = countedMap();
    const other = track(openDatabase({ path: database.name }));
    const commitElsewhere = (name: string) => other.prepare("INSERT INTO plans (name, monthly_messages) VALUES (?, 1)").run(name);
    const commitHere = (name: string) => database.prepare("INSERT INTO plans (name, monthly_messages) VALUES (?, 1)").run(name);
    get("a");
    commitElsewhere("before the step");
    cache.keepingCache(() => commitHere("kept 1"));
    get("a");
    expect(loads).toEqual(["a", "a"]);
    cache.keepingCache(() => {
      commitHere("kept 2");
      commitElsewhere("during the step");
    });
    get("a");
    expect(loads).toEqual(["a", "a", "a"]);
    keepingReadCaches(database, () => {
      database.exec("CREATE TEMP TABLE IF NOT EXISTS scratch (x); INSERT INTO temp.scratch VALUES (1)");
      commitElsewhere("during a step on temporary tables");
    });
    get("a");
    expect(loads).toEqual(["a", "a", "a", "a"]);
    cache.keepingCache(() => commitHere("kept 3"));
    keepingReadCaches(database, () => database.exec("INSERT INTO temp.scratch VALUES (2)"));
    get("a");
    expect(loads).toEqual(["a", "a", "a", "a"]); // its own steps alone keep it
  });

  it("checks other connections' commits once for a request's reads: the next request, or a later turn, sees them", async () => {
    const { database, cache, get, loads } = countedMap();
    const other = track(openDatabase({ path: database.name }));
    const commitElsewhere = (name: string) => other.prepare("INSERT INTO plans (name, monthly_messages) VALUES (?, 1)").run(name);
    cache.requestStarted();
    get("a");
    commitElsewhere("during the request");
    get("a"); // the same request: its reads share the check made at its first read
    expect(loads).toEqual(["a"]);
    cache.requestStarted();
    get("a"); // a request started after the commit sees it
    expect(loads).toEqual(["a", "a"]);
    commitElsewhere("before the turn ends");
    await new Promise((resolve) => setImmediate(resolve));
    get("a"); // work of a later turn, outside any request, checks for itself
    expect(loads).toEqual(["a", "a", "a"]);
    cache.requestStarted();
    get("a");
    expect(loads).toEqual(["a", "a", "a"]); // nothing changed since
    database.prepare("INSERT INTO plans (name, monthly_messages) VALUES ('here', 1)").run();
    get("a"); // this connection's own writes are checked at every read
    expect(loads).toEqual(["a", "a", "a", "a"]);
  });

  it("stays warm through a keyword search on its connection that tokenizes new words in a scratch table", async () => {
    const { database, get, loads } = countedMap();
    const index = createSqliteSearchIndex({ database });
    const space = { embedderId: "test-2", dimensions: 2 };
    const bot = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
    await index.replaceDocument(bot, space, { source: "kettle.md", title: "Kettle", chunks: [{ text: "Descale the kettle monthly", embedding: Float32Array.from([1, 0]) }] });
    get("a");
    // Words the index has not seen in a query yet: their FTS5 terms come from a scratch table's rows.
    expect((await index.keywordSearch(bot, "how often descale kettles", 5)).map((hit) => hit.text)).toEqual(["Descale the kettle monthly"]);
    get("a");
    expect(loads).toEqual(["a"]);
  });

  it("keeps at most maxEntries values, dropping the oldest first", () => {
    const { map, get, loads } = countedMap(3);
    for (const key of ["a", "b", "c", "d", "e"]) get(key);
    expect(map.size).toBe(3);
    get("e");
    get("c");
    get("a");
    expect(loads).toEqual(["a", "b", "c", "d", "e", "a"]);
    expect(map.size).toBe(3);
  });

  it("does not remember misses, and remembers nothing with maxEntries 0", () => {
    const missing = countedMap();
    missing.get("unknown", null);
    missing.get("unknown", null);
    expect(missing.loads).toEqual(["unknown", "unknown"]);
    expect(missing.map.size).toBe(0);
    const off = countedMap(0);
    off.get("a");
    off.get("a");
    expect(off.loads).toEqual(["a", "a"]);
  });
});
