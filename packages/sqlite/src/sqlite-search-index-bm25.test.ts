import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SearchIndex } from "@parley/core";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabase } from "./database.js";
import { createPostingCache } from "./sqlite-search-index-bm25.js";
import { ftsTableOf } from "./sqlite-search-index-keyword.js";
import { createSqliteSearchIndex } from "./sqlite-search-index.js";

const directory = mkdtempSync(join(tmpdir(), "parley-bm25-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const SPACE = { embedderId: "test-2", dimensions: 2 };
const BOT = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const OTHER = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";

function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Stems, inflections, accents, digits, stopwords and mixed case: the tokenizer's corners.
const STEMS = [
  "refund", "refunds", "refunding", "refunded", "account", "accounts", "billing", "bill", "invoice", "invoices", "password",
  "reset", "resetting", "login", "logging", "connect", "connection", "connected", "running", "runs", "run", "café", "cafe",
  "naïve", "résumé", "über", "straße", "日本", "данные", "x86", "v2", "2024", "the", "and", "is", "of", "Generalization",
  "generalize", "generally", "happiness", "happy", "relational", "relate", "organization", "organs", "studies", "studying",
];
for (let index = 0; index < 400; index++) STEMS.push(`term${index}`, `word${index}s`);

function text(random: () => number, length: number): string {
  // Zipf-like: a few words very common (low IDF, even over half the rows), most rare.
  return Array.from({ length }, () => STEMS[Math.floor(STEMS.length * random() ** 3)]!).join(random() < 0.2 ? ", " : " ");
}

async function seed(index: SearchIndex, random: () => number, documents: number, prefix: string) {
  for (let document = 0; document < documents; document++) {
    await index.replaceDocument(BOT, SPACE, {
      source: `${prefix}-${document}`,
      title: text(random, 1 + Math.floor(random() * 5)),
      chunks: Array.from({ length: 1 + Math.floor(random() * 8) }, () => ({
        text: text(random, 3 + Math.floor(random() * 60)),
        embedding: Float32Array.from([random(), random()]),
      })),
    });
  }
}

async function expectSameRanking(fast: SearchIndex, fts5: SearchIndex, random: () => number, queries: number) {
  for (let query = 0; query < queries; query++) {
    const question = text(random, 1 + Math.floor(random() * 10));
    const expected = await fts5.keywordSearch(BOT, question, 20);
    const actual = await fast.keywordSearch(BOT, question, 20);
    expect(actual.map((hit) => hit.chunkId), question).toEqual(expected.map((hit) => hit.chunkId));
    actual.forEach((hit, position) => expect(hit.score).toBeCloseTo(expected[position]!.score, 9));
    expect(actual).toEqual(expected.map((hit, position) => ({ ...hit, score: actual[position]!.score })));
  }
}

describe("in-process BM25 over FTS5's postings", () => {
  it("ranks exactly as FTS5 does, through writes, deletes and another connection's writes", async () => {
    const path = join(directory, "bm25.db");
    const database = openDatabase({ path });
    const fast = createSqliteSearchIndex({ database });
    const fts5 = createSqliteSearchIndex({ database, keywordInProcess: false });
    const random = seeded(7);
    await seed(fast, random, 800, "doc"); // about 3,600 chunks
    await seed(fast, random, 50, "noise").then(() => undefined);
    await fast.replaceDocument(OTHER, SPACE, { source: "o", title: "refund", chunks: [{ text: "refund refund", embedding: Float32Array.from([1, 0]) }] });
    await expectSameRanking(fast, fts5, random, 400);

    // Small changes: deleted rows masked, new rows appended (tokenized by a scratch table).
    for (let document = 0; document < 30; document++) await fast.deleteDocument(BOT, `doc-${document * 7}`);
    await seed(fast, random, 40, "later");
    await expectSameRanking(fast, fts5, random, 200);

    // Another connection writes; this one's copy follows the generation.
    const writerDatabase = openDatabase({ path });
    const writer = createSqliteSearchIndex({ database: writerDatabase });
    await seed(writer, random, 20, "writer");
    await writer.deleteDocument(BOT, "doc-1");
    await expectSameRanking(fast, fts5, random, 200);
    await writer.replaceDocument(BOT, SPACE, { source: "needle", title: "Zebrafish", chunks: [{ text: "zebrafish notch", embedding: Float32Array.from([1, 0]) }] });
    expect((await fast.keywordSearch(BOT, "zebrafish", 5))[0]!.text).toBe("zebrafish notch");
    await writer.deleteDocument(BOT, "needle");
    expect(await fast.keywordSearch(BOT, "zebrafish", 5)).toEqual([]);

    // A large change: the copy is reloaded.
    for (let document = 100; document < 500; document++) await writer.deleteDocument(BOT, `doc-${document}`);
    await expectSameRanking(fast, fts5, random, 200);
    writerDatabase.close();
    database.close();
  }, 60_000);

  it("finds nothing in an empty chatbot and handles words FTS5 splits", async () => {
    const database = openDatabase({ path: ":memory:" });
    const fast = createSqliteSearchIndex({ database });
    const fts5 = createSqliteSearchIndex({ database, keywordInProcess: false });
    await fast.replaceDocument(BOT, SPACE, { source: "a", title: "A", chunks: [] });
    expect(await fast.keywordSearch(BOT, "anything", 5)).toEqual([]);
    await fast.replaceDocument(BOT, SPACE, { source: "a", title: "Modifier ʰletters", chunks: [{ text: "aʰb ǅ ﬁne x²", embedding: Float32Array.from([1, 0]) }] });
    for (const question of ["aʰb", "ǅ", "ﬁne", "x²", "letters modifier", "a b"]) {
      expect(await fast.keywordSearch(BOT, question, 5), question).toEqual(await fts5.keywordSearch(BOT, question, 5));
    }
    database.close();
  });

  it("stays within its memory budget: a chatbot too large for it is left to FTS5, the least recent dropped", async () => {
    const database = openDatabase({ path: ":memory:" });
    const index = createSqliteSearchIndex({ database });
    const random = seeded(11);
    await seed(index, random, 40, "doc");
    await index.replaceDocument(OTHER, SPACE, { source: "o", title: "refund", chunks: [{ text: "refund policy", embedding: Float32Array.from([1, 0]) }] });
    const bots = database.prepare("SELECT key, generation FROM search_chatbots ORDER BY key").all() as { key: number; generation: number }[];
    const [big, small] = bots as [{ key: number; generation: number }, { key: number; generation: number }];
    const search = (cache: ReturnType<typeof createPostingCache>, bot: { key: number; generation: number }) =>
      database.transaction(() => cache.search(bot.key, ftsTableOf(bot.key), bot.generation, ["refund"], 5))();
    expect(search(createPostingCache(database, { titleWeight: 3, cacheBytes: 1_000 }), big)).toBeNull();
    const roomy = createPostingCache(database, { titleWeight: 3 });
    expect(search(roomy, big)).not.toBeNull();
    const tight = createPostingCache(database, { titleWeight: 3, cacheBytes: 40_000 });
    expect(search(tight, small)).toHaveLength(1);
    expect(search(tight, big)).toBeNull(); // bounded by FTS5's token total before loading
    expect(search(tight, small)).toHaveLength(1);
    database.close();
  });
});

describe("warming up the keyword postings", () => {
  it("reads every word once, in slices that let other work run, and ranks as FTS5 after", async () => {
    const database = openDatabase({ path: join(directory, "warm.db") });
    const fast = createSqliteSearchIndex({ database });
    const random = seeded(11);
    await seed(fast, random, 60, "doc");
    database.exec(`CREATE VIRTUAL TABLE temp.vocabulary USING fts5vocab (main, ${ftsTableOf(1)}, row)`);
    const vocabulary = database.prepare("SELECT count(*) FROM temp.vocabulary").pluck().get() as number;

    let finished = false;
    let interleaved = 0;
    const warming = fast.warmUp({ sliceMs: 0 }).then((result) => ((finished = true), result));
    const tick = () => {
      if (finished) return;
      interleaved++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const result = await warming;
    expect(result).toEqual({ chatbots: 1, words: vocabulary });
    expect(interleaved).toBeGreaterThan(10); // one word a slice: other callbacks ran between slices
    expect(await fast.warmUp()).toEqual({ chatbots: 1, words: 0 }); // nothing left to read

    const fts5 = createSqliteSearchIndex({ database, keywordInProcess: false });
    await expectSameRanking(fast, fts5, random, 100);
    database.close();
  });

  it("stops when its signal aborts, and when the database is closed", async () => {
    const database = openDatabase({ path: join(directory, "warm-abort.db") });
    const index = createSqliteSearchIndex({ database });
    await seed(index, seeded(12), 20, "doc");
    const controller = new AbortController();
    const warming = index.warmUp({ signal: controller.signal, sliceMs: 0 });
    controller.abort();
    expect(await warming).toEqual({ chatbots: 0, words: 0 });
    const closing = index.warmUp({ sliceMs: 0 });
    database.close();
    expect((await closing).chatbots).toBe(0);
  });
});

describe("the keyword arm's temporary tables", () => {
  it("searches again after the transaction that made its temporary tables rolled back", async () => {
    const database = openDatabase({ path: join(directory, "scratch-rollback.db") });
    const index = createSqliteSearchIndex({ database });
    await index.replaceDocument(BOT, SPACE, { source: "kettle.md", title: "Kettle", chunks: [{ text: "Descale the kettle monthly", embedding: Float32Array.from([1, 0]) }] });
    // A first search inside a caller's transaction that then fails: the temporary tables made
    // for it (the scratch tokenizer, the chatbot's vocabulary views) go with the rollback.
    const failing = database.transaction(() => {
      void index.keywordSearch(BOT, "descale kettle", 5);
      throw new Error("the caller's step failed");
    });
    expect(failing).toThrow("the caller's step failed");
    expect((await index.keywordSearch(BOT, "monthly", 5)).map((hit) => hit.text)).toEqual(["Descale the kettle monthly"]);
    database.close();
  });
});
