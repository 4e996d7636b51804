// PostgreSQL's CPU per chat statement: one server in this process on one PostgreSQL connection,
// chats sent one after another, and around every statement the CPU its backend used, read from
// /proc/<pid>/schedstat (nanoseconds of run time; the server runs on this machine). Used by
// `npm run bench:scaleout` (after its throughput table) and runnable alone:
// `node --conditions=source --import tsx packages/server/bench/chat-statement-cpu.ts [--chats N]`.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createPool, createPostgresSearchIndex, createPostgresStorage, createPostgresUploadStore, openPostgres } from "@parley/postgres";
import type pg from "pg";
import { createRequestHandler } from "../src/http/create-request-handler.js";
import { loadConfig } from "../src/runtime/config.js";
import { wireParley } from "../src/runtime/open-parley.js";

/** Nanoseconds of CPU the backend `pid` has run so far. */
const runTime = (pid: number) => Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);

/** What one kind of statement cost: how many ran and their backend CPU in all, in ns. */
interface StatementCost {
  count: number;
  nanoseconds: number;
}

/**
 * Wraps the client of a one-connection pool so that every query, in a transaction or not, adds
 * its backend's CPU to `costs`, by the statement's name (else its first words).
 */
function measureStatements(client: pg.PoolClient, costs: Map<string, StatementCost>, enabled: { on: boolean }) {
  const pid = (client as pg.PoolClient & { processID: number }).processID;
  const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
  client.query = ((...args: unknown[]) => {
    const statement = typeof args[0] === "object" && args[0] !== null ? (args[0] as { text: string; name?: string }) : { text: String(args[0]) };
    if (!enabled.on) return query(...args);
    const before = runTime(pid);
    const record = () => {
      const label = statement.name ?? statement.text.replace(/\s+/g, " ").trim().slice(0, 60);
      const cost = costs.get(label) ?? { count: 0, nanoseconds: 0 };
      cost.count += 1;
      cost.nanoseconds += runTime(pid) - before;
      costs.set(label, cost);
    };
    // pool.query calls it with a callback; a transaction's code awaits the promise.
    const callback = args.at(-1);
    if (typeof callback === "function") {
      return query(...args.slice(0, -1), (error: unknown, result: unknown) => {
        record();
        (callback as (error: unknown, result: unknown) => void)(error, result);
      });
    }
    return query(...args).finally(record);
  }) as typeof client.query;
}

/**
 * Sends `chats` chats, one at a time, to a chatbot with `documents` documents (0: the bench's
 * chatbot), and returns the table of each statement's CPU and the CPU per chat.
 */
export async function chatStatementCpu(options: { databaseUrl: string; env: Record<string, string>; chats: number; documents: number; explain?: boolean }): Promise<string[]> {
  const schema = `parley_profile_${randomUUID().replaceAll("-", "")}`;
  const setup = createPool({ url: options.databaseUrl, poolSize: 1 });
  await setup.query(`CREATE SCHEMA ${schema}`);
  const pool = createPool({ url: options.databaseUrl, schema, poolSize: 1 });
  const server = createServer();
  try {
    const { vectors } = await openPostgres({ pool });
    const wired = wireParley(loadConfig({ ...options.env, PARLEY_KEY_RATE_LIMIT: "1000000", PARLEY_CONVERSATION_RATE_LIMIT: "1000000" }), {
      storage: createPostgresStorage({ pool }),
      searchIndex: createPostgresSearchIndex({ pool, ...(vectors === undefined ? {} : { vectors }) }),
      uploads: createPostgresUploadStore(pool),
    });
    const { admin } = wired.parley;
    await admin.setPlan("bench", 1_000_000_000);
    const user = await admin.createUser({ email: "profile@example.com", plan: "bench" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Profile", provider: "openai", model: "gpt-bench" });
    for (let index = 0; index < options.documents; index += 1) {
      const text = `Kettle manual part ${index}. Descale the kettle every month with citric acid; rinse it twice. The warranty lasts two years from purchase, and covers the heating element ${index}.`;
      await admin.ingestDocument(chatbot.id, { source: `manual-${index}.md`, title: `Manual ${index}`, text });
    }
    server.on("request", createRequestHandler({ parley: wired.parley, log: () => {} }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/chatbots/${chatbot.id}/chat`;
    const costs = new Map<string, StatementCost>();
    const enabled = { on: false };
    // The pool's one connection, the same for the whole run (it is never idle long enough to close).
    const client = await pool.connect();
    const pid = (client as pg.PoolClient & { processID: number }).processID;
    measureStatements(client, costs, enabled);
    client.release();
    // As \`parley serve\` does: the webhook dispatcher fans each chat's events out (to no subscription here).
    wired.dispatcher.start();
    const chat = async (index: number) => {
      const body = JSON.stringify({ message: `How do I descale the kettle? (${index})`, session_id: `visitor-${index % 25}` });
      const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
      if (response.status !== 200) throw new Error(`A chat answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    };
    for (let index = 0; index < 50; index += 1) await chat(index); // warm-up: conversations created, caches filled
    enabled.on = true;
    const before = runTime(pid);
    for (let index = 0; index < options.chats; index += 1) await chat(index);
    const total = runTime(pid) - before;
    const measured = [...costs.values()].reduce((sum, cost) => sum + cost.nanoseconds, 0);
    const lines = [
      `PostgreSQL backend CPU per chat, ${options.documents} documents, ${options.chats} chats one at a time: ${(total / options.chats / 1e6).toFixed(3)} ms (statements ${(measured / options.chats / 1e6).toFixed(3)} ms)`,
      "",
      "| statement | per chat | µs each | share | plans (since the connection opened) |",
      "|---|---:|---:|---:|---|",
    ];
    enabled.on = false;
    await wired.dispatcher.stop();
    // Which plan each prepared statement ran with: generic (planned once) or custom (planned each time).
    const plans = await pool.query<{ name: string; generic_plans: number; custom_plans: number }>("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements");
    const planOf = new Map(plans.rows.map((row) => [row.name, `${row.generic_plans} generic, ${row.custom_plans} custom`]));
    for (const [label, cost] of [...costs].sort((a, b) => b[1].nanoseconds - a[1].nanoseconds)) {
      const share = Math.round((cost.nanoseconds * 100) / measured);
      lines.push(`| \`${label}\` | ${(cost.count / options.chats).toFixed(2)} | ${Math.round(cost.nanoseconds / cost.count / 1e3)} | ${share} % | ${planOf.get(label) ?? "not prepared"} |`);
    }
    if (options.explain) {
      // Each statement of one more chat with its plan, as executed (auto_explain, loaded for this
      // connection only: nothing of the server's configuration changes), foreign key checks included.
      const client = await pool.connect();
      const plans: string[] = [];
      client.on("notice", (notice) => plans.push(notice.message ?? ""));
      for (const setting of ["log_min_duration = 0", "log_analyze = on", "log_buffers = on", "log_verbose = on", "log_nested_statements = on", "log_triggers = on", "log_level = notice"]) {
        if (setting === "log_min_duration = 0") await client.query("LOAD 'auto_explain'");
        await client.query(`SET auto_explain.${setting}`);
      }
      client.release();
      await chat(options.chats);
      lines.push("", ...plans);
    }
    return lines;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    await pool.end();
    await setup.query(`DROP SCHEMA ${schema} CASCADE`);
    await setup.end();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { chats: { type: "string", default: "500" }, documents: { type: "string", default: "0" }, explain: { type: "boolean", default: false } } });
  const { startFakeOpenAI } = await import("@parley/providers/testing");
  const openai = await startFakeOpenAI();
  try {
    const databaseUrl = process.env.PARLEY_TEST_DATABASE_URL?.trim() || "postgres://postgres@127.0.0.1:5432/test";
    const env = { PARLEY_DB: "/nonexistent/parley.db", OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: openai.url, PARLEY_SECRET_KEY: "a-master-key-for-the-statement-profile" };
    for (const line of await chatStatementCpu({ databaseUrl, env, chats: Number(values.chats), documents: Number(values.documents), explain: values.explain })) process.stdout.write(`${line}\n`);
  } finally {
    await openai.close();
  }
}
