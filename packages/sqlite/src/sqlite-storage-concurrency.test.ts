import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { createSqliteStorage } from "./sqlite-storage.js";
import { prepareStorageStatements } from "./sqlite-storage-statements.js";
import { closeAfterEach, seedChatbot, temporaryPaths } from "./sqlite-storage-test-fixtures.js";

const freshPath = temporaryPaths();
const track = closeAfterEach();

describe("SQLite storage on several connections", () => {
  it("lets a second connection see committed data, and the quota holds across both", async () => {
    const path = freshPath();
    const first = track(createSqliteStorage({ path }));
    const second = track(createSqliteStorage({ path }));
    const { chatbot, input } = await seedChatbot(first);
    expect(await second.getChatbot(chatbot.id)).toEqual(chatbot);
    // 30 calls alternating between the connections against a limit of 10.
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, index) => (index % 2 === 0 ? first : second).acceptUserMessage(input({ monthlyLimit: 10 }))),
    );
    expect(results.filter((result) => result.accepted)).toHaveLength(10);
    expect(await first.getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(10);
    expect(await second.getMonthlyUsage(chatbot.ownerId, "2026-11")).toBe(10);
  });

  it("reserves the quota exactly under truly parallel writers on four connections", async () => {
    const path = freshPath();
    const storage = track(createSqliteStorage({ path }));
    const { user } = await seedChatbot(storage);
    const reserveSql = prepareStorageStatements(track(openDatabase({ path }))).reserveMonthlyQuota.source;
    // In one thread synchronous calls never overlap, so this uses worker threads, released
    // together by a shared gate, each running the adapter's reservation statement in an
    // IMMEDIATE transaction as the adapter does. (A read-then-write counter in the same
    // harness loses about half its updates, so the workers do contend.)
    const workerSource = `
      const { parentPort, workerData } = require("node:worker_threads");
      const Database = require(workerData.driver);
      const database = new Database(workerData.path);
      database.pragma("busy_timeout = 20000");
      const reserve = database.prepare(workerData.sql);
      const step = database.transaction(() => reserve.get({ user_id: workerData.userId, month: "2026-11", limit: 2500 }));
      const gate = new Int32Array(workerData.gate);
      Atomics.add(gate, 0, 1);
      while (Atomics.load(gate, 0) < workerData.workers) Atomics.wait(gate, 0, Atomics.load(gate, 0), 20);
      let accepted = 0;
      for (let attempt = 0; attempt < 1000; attempt += 1) if (step.immediate()) accepted += 1;
      database.close();
      parentPort.postMessage(accepted);
    `;
    const driver = createRequire(import.meta.url).resolve("better-sqlite3");
    const gate = new SharedArrayBuffer(4);
    const counts = await Promise.all(
      Array.from({ length: 4 }, () => {
        const workerData = { driver, path, sql: reserveSql, userId: user.id, gate, workers: 4 };
        const worker = new Worker(workerSource, { eval: true, workerData });
        return new Promise<number>((resolve, reject) => {
          worker.once("message", resolve);
          worker.once("error", reject);
        });
      }),
    );
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(2500);
    expect(await storage.getMonthlyUsage(user.id, "2026-11")).toBe(2500);
  });
});
