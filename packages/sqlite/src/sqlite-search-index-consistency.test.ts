import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "tsup";
import type { Database } from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import BetterSqlite3 from "better-sqlite3";
import { migrate, openDatabase, schemaVersion } from "./database.js";
import { MIGRATIONS } from "./migrations/index.js";
import { CRASH_CHATBOT, CRASH_CHUNKS, CRASH_ROUND, CRASH_SOURCES, CRASH_SPACE, crashSourceOf } from "./sqlite-search-index-crash-child.js";
import { FTS_AUTOMERGE, ftsTableOf } from "./sqlite-search-index-keyword.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

const directory = mkdtempSync(join(tmpdir(), "parley-search-"));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  rmSync(new URL(`../../../.parley-bench/crash-child-${process.pid}`, import.meta.url).pathname, { recursive: true, force: true });
});

const SPACE = { embedderId: "test-4", dimensions: 4 };
const BOT = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const OTHER_BOT = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const unit = (...values: number[]) => Float32Array.from(values);

/** Each chatbot's FTS5 table holds exactly its chunks and passes FTS5's own integrity check. */
function expectConsistent(database: Database): void {
  expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
  const chatbots = database.prepare("SELECT key FROM search_chatbots").all() as { key: number }[];
  for (const { key } of chatbots) {
    const table = ftsTableOf(key);
    expect(() => database.exec(`INSERT INTO ${table} (${table}) VALUES ('integrity-check')`)).not.toThrow();
    const chunks = database.prepare("SELECT id FROM search_chunks WHERE bot = ? ORDER BY id").all(key);
    const indexed = database.prepare(`SELECT id FROM ${table}_docsize ORDER BY id`).all();
    expect(indexed).toEqual(chunks);
  }
  const orphans = database.prepare("SELECT count(*) AS count FROM search_chunks WHERE bot NOT IN (SELECT key FROM search_chatbots)").get() as { count: number };
  expect(orphans.count).toBe(0);
}

describe("SQLite search index storage", () => {
  it("applies the search migration as schema version 2", () => {
    const database = openDatabase({ path: join(directory, "migrate.db") });
    expect(schemaVersion(database)).toBeGreaterThanOrEqual(2);
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')").all().map((row) => (row as { name: string }).name);
    expect(tables).toEqual(expect.arrayContaining(["search_chatbots", "search_chunks"]));
    database.close();
    const reopened = openDatabase({ path: join(directory, "migrate.db") });
    expect(schemaVersion(reopened)).toBeGreaterThanOrEqual(2);
    reopened.close();
  });

  it("merges every chatbot's FTS5 segments at FTS_AUTOMERGE, new tables and upgraded ones", async () => {
    const automergeOf = (database: Database, key: number) =>
      database.prepare(`SELECT v FROM ${ftsTableOf(key)}_config WHERE k = 'automerge'`).pluck().get();
    // A database as version 3 left it: a chatbot's table with FTS5's default.
    const path = join(directory, "automerge.db");
    const old = new BetterSqlite3(path);
    migrate(old, MIGRATIONS.slice(0, 3));
    old.prepare("INSERT INTO search_chatbots (chatbot_id, embedder_id, dimensions) VALUES (?, 'test-4', 4)").run(BOT);
    old.exec(`CREATE VIRTUAL TABLE ${ftsTableOf(1)} USING fts5 (title, body, content = '', contentless_delete = 1, tokenize = 'porter unicode61')`);
    expect(automergeOf(old, 1)).toBeUndefined();
    old.close();
    const upgraded = openDatabase({ path });
    expect(automergeOf(upgraded, 1)).toBe(FTS_AUTOMERGE);
    await createSqliteSearchIndex({ database: upgraded }).replaceDocument(OTHER_BOT, SPACE, { source: "a", title: "A", chunks: [{ text: "new", embedding: unit(1, 0, 0, 0) }] });
    expect(automergeOf(upgraded, 2)).toBe(FTS_AUTOMERGE);
    upgraded.close();
  });

  it("keeps the chunk table and FTS5 consistent through replaces, deletes and reindexing", async () => {
    const database = openDatabase({ path: ":memory:" });
    const index = createSqliteSearchIndex({ database });
    await index.replaceDocument("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", SPACE, { source: "other", title: "Other", chunks: [{ text: "refunds elsewhere", embedding: unit(1, 1, 1, 1) }] });
    for (let round = 0; round < 3; round++) {
      for (let document = 0; document < 5; document++) {
        await index.replaceDocument(BOT, SPACE, {
          source: `doc-${document}`,
          title: `Document ${document} round ${round}`,
          chunks: Array.from({ length: 1 + ((document + round) % 3) }, (_, position) => ({
            text: `round ${round} chunk ${position} about refunds`,
            embedding: unit(1, round, document, position),
          })),
        });
      }
    }
    expectConsistent(database);
    expect(await index.deleteDocument(BOT, "doc-1")).toBe(true);
    await index.replaceDocument(BOT, SPACE, { source: "doc-2", title: "Empty", chunks: [] });
    expectConsistent(database);
    const chunks = await index.listChunks(BOT, { limit: 100 });
    await index.replaceEmbeddings(BOT, { embedderId: "test-2", dimensions: 2 }, chunks.map(({ chunkId }) => ({ chunkId, embedding: unit(1, 0) })), { reset: true });
    expectConsistent(database);
    expect((await index.keywordSearch(BOT, "round 2", 100)).every((hit) => hit.text.startsWith("round 2"))).toBe(true);
    database.close();
  });

  it("sees writes made through another connection to the same file", async () => {
    const path = join(directory, "shared.db");
    const writer = createSqliteSearchIndex({ database: openDatabase({ path }) });
    const readerDatabase = openDatabase({ path });
    const reader = createSqliteSearchIndex({ database: readerDatabase });
    const many = (prefix: string) => Array.from({ length: 600 }, (_, position) => ({ text: `${prefix} ${position}`, embedding: unit(0, 1, position % 7, 1) }));
    await writer.replaceDocument(BOT, SPACE, { source: "bulk", title: "Bulk", chunks: many("bulk") });
    expect(await reader.vectorSearch(BOT, SPACE, unit(1, 0, 0, 0), 1)).toHaveLength(1); // loads the in-process copy
    await writer.replaceDocument(BOT, SPACE, { source: "needle", title: "Needle", chunks: [{ text: "the needle", embedding: unit(1, 0, 0, 0) }] });
    expect((await reader.vectorSearch(BOT, SPACE, unit(1, 0, 0, 0), 1))[0]!.text).toBe("the needle");
    await writer.deleteDocument(BOT, "needle");
    expect((await reader.vectorSearch(BOT, SPACE, unit(1, 0, 0, 0), 1))[0]!.text).not.toBe("the needle");
    readerDatabase.close();
  });

  it("leaves a consistent database when the process is killed mid-ingestion", async () => {
    // Built inside the repository (.parley-bench is ignored) so the bundle finds node_modules.
    const out = new URL(`../../../.parley-bench/crash-child-${process.pid}`, import.meta.url).pathname;
    await build({
      entry: { child: new URL("./sqlite-search-index-crash-child.ts", import.meta.url).pathname },
      outDir: out,
      format: ["esm"],
      platform: "node",
      target: "node20",
      silent: true,
      external: ["better-sqlite3", "sqlite-vec"],
      esbuildOptions(options) {
        options.conditions = ["source"];
      },
    });
    const path = join(directory, "crash.db");
    const child = spawn(process.execPath, [join(out, "child.js"), "--crash-child", path], { stdio: ["ignore", "pipe", "inherit"] });
    const lines: string[] = [];
    await new Promise<void>((resolve, reject) => {
      child.on("error", reject);
      child.on("exit", (code, signal) => (signal === "SIGKILL" ? resolve() : reject(new Error(`child exited with ${code}`))));
      let pending = "";
      child.stdout.on("data", (data: Buffer) => {
        const parts = (pending + data.toString()).split("\n");
        pending = parts.pop()!;
        lines.push(...parts);
        // The child is now waiting inside the write transaction of CRASH_ROUND.
        if (parts.some((line) => line.startsWith("writing "))) child.kill("SIGKILL");
      });
    });
    const committed = lines.filter((line) => /^\d+$/.test(line)).map(Number);
    expect(committed).toEqual(Array.from({ length: CRASH_ROUND - 1 }, (_, index) => index + 1));
    expect(lines.at(-1)).toBe(`writing ${CRASH_ROUND} in transaction: true`);

    const database = openDatabase({ path });
    expectConsistent(database);
    // Each source holds all the chunks of the last round that committed for it, and nothing of
    // the killed round: its source keeps the round before.
    const expected = new Map<string, number>();
    for (const round of committed) expected.set(crashSourceOf(round), round);
    expect(expected.get(crashSourceOf(CRASH_ROUND))).toBe(CRASH_ROUND - CRASH_SOURCES);
    const rows = database.prepare("SELECT source, body FROM search_chunks").all() as { source: string; body: string }[];
    const found = new Map<string, { rounds: Set<number>; chunks: number }>();
    for (const { source, body } of rows) {
      const entry = found.get(source) ?? { rounds: new Set<number>(), chunks: 0 };
      entry.rounds.add(Number(/^round(\d+) /.exec(body)![1]));
      entry.chunks += 1;
      found.set(source, entry);
    }
    expect(new Map([...found].map(([source, { rounds, chunks }]) => [source, { rounds: [...rounds], chunks }]))).toEqual(
      new Map([...expected].map(([source, round]) => [source, { rounds: [round], chunks: CRASH_CHUNKS }])),
    );
    const index = createSqliteSearchIndex({ database });
    expect(await index.keywordSearch(CRASH_CHATBOT, "refunds", 5)).toHaveLength(5);
    expect(await index.vectorSearch(CRASH_CHATBOT, CRASH_SPACE, unit(1, 0, 0, 0, 0, 0, 0, 0), 3)).toHaveLength(3);
    database.close();
  }, 30_000);
});
