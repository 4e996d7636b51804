// The server the fuzz attacks: real SQLite in a temporary folder, the fake OpenAI on 127.0.0.1,
// a seeded world (keys, chatbots in every state, knowledge, a taken-over session), and the
// checks every answer and every log line must pass.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeOpenAI, type FakeOpenAI } from "@parley/providers/testing";
import { loadConfig } from "../../src/runtime/config.js";
import { openParley, type SqliteRuntime } from "../../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../../src/runtime/serve.js";
import type { parseAnswer } from "../raw-http.js";
import type { FuzzWorld } from "./fuzz-requests.js";

/** A running target and what it has logged. */
export interface FuzzTarget {
  port: number;
  world: FuzzWorld;
  runtime: SqliteRuntime;
  /** Strings that must never appear in an answer or a log line. */
  secrets: string[];
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

const PROVIDER_KEY = "sk-fuzz-provider-secret-0123456789";

/** Starts the target on a free port with short timeouts (a fuzzed request that stalls costs one second, not thirty). */
export async function startFuzzTarget(): Promise<FuzzTarget> {
  const folder = mkdtempSync(join(tmpdir(), "parley-fuzz-"));
  const openai: FakeOpenAI = await startFakeOpenAI({ instant: true });
  const config = loadConfig({
    PARLEY_DB: join(folder, "parley.db"),
    OPENAI_API_KEY: PROVIDER_KEY,
    OPENAI_BASE_URL: openai.url,
    PARLEY_LLM_TIMEOUT_MS: "5000",
    PARLEY_KEY_RATE_LIMIT: "1000000",
    PARLEY_ADMIN_KEY_RATE_LIMIT: "1000000",
    PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
    PARLEY_WIDGET_SESSIONS_PER_HOUR: "1000000",
    PARLEY_WIDGET_MESSAGES_PER_MINUTE: "1000000",
    PARLEY_HEADERS_TIMEOUT_MS: "1000",
    PARLEY_REQUEST_TIMEOUT_MS: "1000",
  });
  const runtime = openParley(config);
  const logs: Array<Record<string, unknown>> = [];
  const running: RunningServer = await startServer({ runtime, port: 0, host: "127.0.0.1", log: (line) => logs.push(line), limits: config.http });
  const world = await seed(runtime);
  return {
    port: Number(new URL(running.url).port),
    world,
    runtime,
    secrets: [PROVIDER_KEY, world.keys.valid, world.keys.admin, world.keys.revoked, world.keys.otherUser, world.visitors.active],
    logs,
    close: async () => {
      await running.stop(1_000);
      await openai.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

async function seed(runtime: SqliteRuntime): Promise<FuzzWorld> {
  const { admin } = runtime.parley;
  await admin.setPlan("fuzz", 100_000_000);
  const owner = await admin.createUser({ email: "fuzz@example.com", plan: "fuzz" });
  const other = await admin.createUser({ email: "other@example.com", plan: "fuzz" });
  const valid = (await admin.createApiKey({ userId: owner.id })).key;
  const adminKey = (await admin.createApiKey({ userId: owner.id, scope: "admin" })).key;
  const revokedKey = await admin.createApiKey({ userId: owner.id });
  await admin.revokeApiKey(revokedKey.apiKey.id);
  const otherUser = (await admin.createApiKey({ userId: other.id })).key;
  const bot = (name: string, userId = owner.id) => admin.createChatbot({ userId, name, provider: "openai", model: "gpt-fuzz" });
  const active = await bot("Fuzz Active");
  const paused = await bot("Fuzz Paused");
  const deleted = await bot("Fuzz Deleted");
  const foreign = await bot("Fuzz Foreign", other.id);
  await admin.pauseChatbot(paused.id);
  await admin.deleteChatbot(deleted.id);
  await admin.ingestDocuments(active.id, [
    { source: "refunds.md", text: "Refunds are paid within 14 days. NEAR the store, \"quoted\" words and col:value pairs." },
    { source: "shipping.txt", text: "Shipping takes 3 to 5 days; express shipping 1 day. 😀 émoji and ünïcödé." },
  ]);
  const takeoverSession = "fuzz-agent-desk";
  await admin.startTakeover(active.id, takeoverSession);
  // The widget is on for the active, paused and foreign chatbots; a visitor of each has a session.
  for (const id of [active.id, paused.id, foreign.id]) await admin.changeChatbot(id, { widget: { enabled: true, allowed_origins: ["https://shop.fuzz.test"] } });
  const session = async (id: string) => runtime.parley.widget.startSession(await runtime.parley.widget.find(id), {});
  const visitor = await session(active.id);
  const exchange = await runtime.parley.widget.send(await runtime.parley.widget.find(active.id), visitor.session_id, "Where is my refund?");
  const visitors = { active: visitor.token, paused: (await session(paused.id)).token, foreign: (await session(foreign.id)).token };
  return {
    keys: { valid, admin: adminKey, revoked: revokedKey.key, otherUser },
    visitors,
    visitorReply: exchange.reply!.id,
    bots: { active: active.id, paused: paused.id, deleted: deleted.id, foreign: foreign.id },
    takeoverSession,
  };
}

/** What must never be in an answer: a stack frame, a file path, SQL or SQLite's words. */
const LEAK = /\n\s+at |\bat [\w.<>]+ \(|\.ts:\d|\.js:\d|node_modules|\/tmp\/|\/work\/|SQLITE_|sqlite3|\bSELECT\b|\bINSERT INTO\b|\bUPDATE \w+ SET\b/i;

/** Why an answer breaks a property, or null when it keeps them all. */
export function judgeAnswer(answer: ReturnType<typeof parseAnswer> & { text: string }, secrets: string[], isHead: boolean): string | null {
  const { status, headers, body } = answer;
  if (status === 0) return "no answer";
  if (status >= 500 && status !== 501 && status !== 503) return `status ${status}`;
  for (const secret of secrets) if (answer.text.includes(secret)) return "a secret in the answer";
  const shown = { ...headers, "x-request-id": "" };
  if (LEAK.test(body) || LEAK.test(JSON.stringify(shown))) return `a leak in the answer: ${body.slice(0, 200)}`;
  if (status === 100) return "an interim answer only";
  // The console's pages and assets (2xx, 304) are not JSON, and carry its strict CSP instead.
  if (headers["content-security-policy"]?.includes("default-src 'self'") && (status < 300 || status === 304)) return null;
  // The widget's loader (2xx, 304) is a script any site may load: no CSP of its own, never sniffed.
  const loader = headers["content-type"] === "text/javascript; charset=utf-8" && headers["x-content-type-options"] === "nosniff";
  if (loader && (status < 300 || status === 304)) return null;
  if (isHead) return headers["content-type"]?.startsWith("application/json") === true ? null : "HEAD without the JSON content type";
  // A deletion answers 204: no body and no content type at all.
  if (status === 204) return body === "" && headers["content-type"] === undefined ? null : `a 204 with a body: ${body.slice(0, 200)}`;
  if (headers["content-type"] !== "application/json; charset=utf-8") return `content-type ${headers["content-type"] ?? "missing"}`;
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return `a body that is not JSON: ${body.slice(0, 200)}`;
  }
  if (status >= 400) {
    const keys = json !== null && typeof json === "object" ? Object.keys(json) : [];
    if (keys.length !== 1 || keys[0] !== "detail" || typeof (json as { detail: unknown }).detail !== "string") return `an error body that is not {"detail": string}: ${body.slice(0, 200)}`;
  }
  return null;
}

/** Why the log breaks a property (a fault logged, a secret written), or null. */
export function judgeLogs(logs: Array<Record<string, unknown>>, secrets: string[]): string | null {
  for (const line of logs) {
    const text = JSON.stringify(line);
    if (line.level === "error") return `a fault in the log: ${text.slice(0, 400)}`;
    for (const secret of secrets) if (text.includes(secret)) return `a secret in the log: ${text.slice(0, 200)}`;
    if (/\n\s+at |node_modules|SQLITE_/.test(text)) return `a stack or SQL in the log: ${text.slice(0, 200)}`;
  }
  return null;
}

/** The database's own consistency and the accounting: integrity_check ok, the month's usage equal to the stored user messages. */
export function judgeDatabase(runtime: SqliteRuntime): string | null {
  const integrity = runtime.database.pragma("integrity_check", { simple: true });
  if (integrity !== "ok") return `integrity_check: ${String(integrity)}`;
  const { used } = runtime.database.prepare("SELECT coalesce(sum(used), 0) AS used FROM monthly_usage").get() as { used: number };
  const { stored } = runtime.database.prepare("SELECT count(*) AS stored FROM messages WHERE role = 'user'").get() as { stored: number };
  return used === stored ? null : `usage ${used} but ${stored} user messages stored`;
}
