import { environment } from "./harness.js";
import { loadConfig } from "../src/runtime/config.js";
import { openParley, type SqliteRuntime } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";

/** One tenant of an operator API test: a user with an admin key, a chat key and a chatbot. */
export interface Tenant {
  userId: string;
  adminKey: string;
  chatKey: string;
  botId: string;
}

/** An HTTP answer, parsed. */
export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Tests read answers by path and assert their whole shapes themselves, so the body is untyped here.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

/** Calls the API with a bearer key; a body is sent as JSON unless `raw` is given. */
export async function request(url: string, key: string | undefined, method: string, body?: unknown, options: { raw?: string; contentType?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (key !== undefined) headers.authorization = `Bearer ${key}`;
  let payload: string | undefined;
  if (options.raw !== undefined || body !== undefined) {
    payload = options.raw ?? JSON.stringify(body);
    headers["content-type"] = options.contentType ?? "application/json";
  }
  const response = await fetch(url, { method, headers, ...(payload === undefined ? {} : { body: payload }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** A running server on a fresh database, the fake OpenAI behind it, and two tenants. */
export async function startOperatorServer(options: { heartbeatMs?: number; keyRecheckMs?: number; env?: Record<string, string> } = {}) {
  // The tests' webhook receivers listen on 127.0.0.1, which an API caller may use only when allowed.
  const context = await environment({ PARLEY_ALLOW_PRIVATE_URLS: "true", ...options.env });
  const runtime: SqliteRuntime = openParley(loadConfig(context.env), { log: () => {} });
  const logs: Record<string, unknown>[] = [];
  const running: RunningServer = await startServer({ runtime, port: 0, host: "127.0.0.1", log: (line) => logs.push(line), heartbeatMs: options.heartbeatMs, keyRecheckMs: options.keyRecheckMs });
  const { admin } = runtime.parley;
  const tenant = async (email: string, botName: string): Promise<Tenant> => {
    const userId = (await admin.createUser({ email })).id;
    const adminKey = (await admin.createApiKey({ userId, name: "operator", scope: "admin" })).key;
    const chatKey = (await admin.createApiKey({ userId, name: "widget" })).key;
    const botId = (await admin.createChatbot({ userId, name: botName, provider: "openai", model: "gpt-test", fallbackMessage: "Sorry, I cannot answer that." })).id;
    return { userId, adminKey, chatKey, botId };
  };
  const alice = await tenant("alice@example.com", "Alice's bot");
  const bob = await tenant("bob@example.com", "Bob's bot");
  const url = running.url;
  /** Calls a path of this server. */
  const api = (key: string | undefined, method: string, path: string, body?: unknown, raw?: { raw?: string; contentType?: string }) => request(`${url}${path}`, key, method, body, raw);
  /** A visitor's chat with a chat key, asserted to be answered. */
  const chat = async (tenant: Tenant, sessionId: string, message: string, botId = tenant.botId) => {
    const answer = await api(tenant.chatKey, "POST", `/v1/chatbots/${botId}/chat`, { message, session_id: sessionId });
    if (answer.status !== 200 && answer.status !== 202) throw new Error(`chat answered ${answer.status}: ${answer.text}`);
    return answer;
  };
  /** Counts rows of a table (optionally filtered): to check that a refused write left nothing. */
  const count = (table: string, where = "1 = 1", ...values: unknown[]) =>
    (runtime.database.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...values) as { n: number }).n;
  return {
    context,
    runtime,
    running,
    logs,
    url,
    alice,
    bob,
    api,
    chat,
    count,
    async close() {
      await running.stop();
      await context.cleanup();
    },
  };
}

export type OperatorServer = Awaited<ReturnType<typeof startOperatorServer>>;

/** A syntactically valid id that names nothing. */
export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";

/** A timestamp as the API writes them (docs/design.md §4). */
export const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/;
/** A lower-case UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
