import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPool, MIGRATIONS } from "@parley/postgres";
import { replyWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, runCli } from "./harness.js";
import { startTestPostgres, testDatabaseUrl, type TestPostgres } from "./test-postgres-url.js";

/** What `parley migrate` reports once every migration this version knows has run. */
const LATEST_SCHEMA = { storage: MIGRATIONS.storage.at(-1)!.version, search: MIGRATIONS.search.at(-1)!.version };

// PARLEY_DATABASE_URL and PARLEY_REDIS_URL switch every CLI command (docs/design.md §13). They
// run on the test server (PARLEY_TEST_DATABASE_URL, a schema of this file), else on PGlite.

let context: Awaited<ReturnType<typeof environment>>;
let database: TestPostgres;

beforeAll(async () => {
  context = await environment({ PARLEY_SECRET_KEY: "the-master-key-every-process-shares-1234" });
  database = await startTestPostgres();
}, 60_000);

afterAll(async () => {
  await database?.stop();
  await context?.cleanup();
});

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("the CLI on PostgreSQL", () => {
  it("migrates, then every command works on the database PARLEY_DATABASE_URL names", async () => {
    const env = { ...context.env, PARLEY_DATABASE_URL: database.url };
    const cli = (...args: string[]) => runCli(args, env);
    expect((await cli("migrate")).json).toEqual({ engine: "postgres", schema: LATEST_SCHEMA, vectors: database.vectors });
    const user = (await cli("user", "create", "--email", "pg@example.com")).json as Record<string, string>;
    const bot = (await cli("bot", "create", "--user", user.id!, "--name", "Kettle Bot", "--provider", "openai", "--model", "m")).json as Record<string, string>;
    expect(bot).toMatchObject({ slug: "kettle-bot" });
    const file = join(context.folder, "kettle.md");
    writeFileSync(file, "# Descaling\n\nDescale the kettle every month with citric acid.");
    expect((await cli("ingest", "--bot", bot.id!, file)).json).toMatchObject({ documents: 1, chunks: 1 });
    expect((await cli("takeover", "start", "--bot", bot.id!, "--session", "s")).json).toMatchObject({ human_takeover: true });
    expect((await cli("takeover", "reply", "--bot", bot.id!, "--session", "s", "--message", "Hello from Dana")).json).toMatchObject({ message_id: expect.any(String) });
    expect((await cli("conversation", "show", "--bot", bot.id!, "--session", "s")).json).toMatchObject({ messages: [{ role: "assistant", content: "Hello from Dana" }] });
    // Nothing went to SQLite: its file was never created.
    expect(existsSync(context.env.PARLEY_DB!)).toBe(false);
  }, 120_000);

  it("parley serve answers on PostgreSQL: a key, its chatbots, a chat, then a graceful stop", async () => {
    const env = { ...context.env, PARLEY_DATABASE_URL: database.url };
    const user = (await runCli(["user", "create", "--email", "serve@example.com"], env)).json as { id: string };
    const { key } = (await runCli(["key", "create", "--user", user.id], env)).json as { key: string };
    const bot = (await runCli(["bot", "create", "--user", user.id, "--name", "Served", "--provider", "openai", "--model", "gpt-test"], env)).json as { id: string };
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/run-cli.ts", "serve", "--port", "0"], {
      cwd: join(dirname(fileURLToPath(import.meta.url)), ".."),
      env: { PATH: process.env.PATH, ...env },
    });
    let stderr = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk;
        const found = /listening on (http:\/\/[\d.:]+) \(database PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/[^)]*\)/.exec(stderr);
        if (found) resolve(found[1]!);
      });
      child.once("exit", () => reject(new Error(`serve exited: ${stderr}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      const list = await call(`${url}/v1/chatbots`, { key });
      expect(list.status).toBe(200);
      expect((list.json as { id: string }[]).map((chatbot) => chatbot.id)).toEqual([bot.id]);
      context.openai.chat.enqueue(replyWith("Served from PostgreSQL."));
      const chat = await call(`${url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "Hello?", session_id: "served" } });
      expect({ status: chat.status, body: chat.json }).toEqual({ status: 200, body: { response: "Served from PostgreSQL." } });
      // The visitor's question reached the model, and both turns are stored in PostgreSQL.
      expect(JSON.stringify(context.openai.chat.requests.at(-1)?.body)).toContain("Hello?");
      const stored = createPool({ url: database.url, poolSize: 1 });
      try {
        const { rows } = await stored.query(
          "SELECT m.role, m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.session_id = 'served' ORDER BY m.seq",
        );
        expect(rows).toEqual([{ role: "user", content: "Hello?" }, { role: "assistant", content: "Served from PostgreSQL." }]);
      } finally {
        await stored.end();
      }
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 120_000);

  it("says the database cannot be reached, without its password, and exits 1", async () => {
    const port = await closedPort();
    const result = await runCli(["migrate"], { ...context.env, PARLEY_DATABASE_URL: `postgres://parley:hunter2@127.0.0.1:${port}/parley` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^parley migrate: Cannot connect to PostgreSQL at postgres://parley:\\*\\*\\*@127\\.0\\.0\\.1:${port}/parley: `));
    expect(result.stderr).not.toContain("hunter2");
  }, 30_000);

  it("says Redis cannot be reached when PARLEY_REDIS_URL names a dead one", async () => {
    const port = await closedPort();
    const result = await runCli(["migrate"], { ...context.env, PARLEY_REDIS_URL: `redis://127.0.0.1:${port}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^parley migrate: Cannot connect to Redis at redis://127\\.0\\.0\\.1:${port}/?: `));
  }, 30_000);

  it("needs PARLEY_SECRET_KEY with PARLEY_DATABASE_URL, so every process signs webhooks alike", async () => {
    const { PARLEY_SECRET_KEY: _key, ...withoutKey } = context.env;
    const result = await runCli(["migrate"], { ...withoutKey, PARLEY_DATABASE_URL: database.url });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("parley migrate: PARLEY_DATABASE_URL needs PARLEY_SECRET_KEY: every server process must sign webhooks with the same master key.\n");
  }, 30_000);

  it("refuses a URL that is not postgres://", async () => {
    const result = await runCli(["migrate"], { ...context.env, PARLEY_DATABASE_URL: "mysql://127.0.0.1/parley" });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("parley migrate: PARLEY_DATABASE_URL must be a postgres:// or postgresql:// URL.\n");
  }, 30_000);
});

if (testDatabaseUrl === undefined) console.warn("skipped: the CLI on a PostgreSQL server without pgvector: PARLEY_TEST_DATABASE_URL is not set.");
describe.skipIf(testDatabaseUrl === undefined)("the CLI on a PostgreSQL server without pgvector (needs PARLEY_TEST_DATABASE_URL)", () => {
  it("migrates with in-process vectors, and --vectors pgvector says what to install while the data stays served", async () => {
    const own = await startTestPostgres();
    try {
      if (own.vectors === "pgvector") return; // this server has pgvector: nothing to refuse
      const env = { ...context.env, PARLEY_DATABASE_URL: own.url };
      expect((await runCli(["migrate"], env)).json).toEqual({ engine: "postgres", schema: LATEST_SCHEMA, vectors: "in-process" });
      const moved = await runCli(["migrate", "--vectors", "pgvector"], env);
      expect(moved.code).toBe(1);
      expect(moved.stderr).toBe(
        "parley migrate: PostgreSQL has no pgvector extension. Install pgvector on the server (e.g. the pgvector/pgvector image or the postgresql-NN-pgvector package), " +
          "or leave the vectors in process (the default where pgvector is missing).\n",
      );
      const wrong = await runCli(["migrate", "--vectors", "in-process"], env);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toBe('parley migrate: --vectors: only pgvector (got "in-process"): a database moves from in-process vectors to pgvector, never back.\n');
      expect((await runCli(["migrate"], env)).json).toMatchObject({ vectors: "in-process" });
    } finally {
      await own.stop();
    }
  }, 60_000);
});
