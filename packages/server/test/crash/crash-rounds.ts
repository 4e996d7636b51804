// The kill rounds themselves: SIGKILL the server during a chat load with webhook retries under
// way, and `parley ingest` in the middle of a folder; restart and check after each.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { startFakeOpenAI, replyWith } from "@parley/providers/testing";
import { loadConfig } from "../../src/runtime/config.js";
import { openParley } from "../../src/runtime/open-parley.js";
import { checkAccounting, pendingDeliveries } from "./crash-checks.js";
import { buildChildren, seededRandom, startChatLoad, startChild, startFlakyReceiver, startServerChild, type ChatOutcome, type Child } from "./crash-harness.js";

/** What a run of kills did and found. */
export interface KillReport {
  kills: number;
  /** Chats answered 200 or 202 (whose promises were checked), and chats cut by a kill. */
  answered: number;
  unanswered: number;
  /** Webhook attempts the receiver got (about a third refused) and deliveries checked. */
  webhookAttempts: number;
  /** Ingest rounds the kill found mid-way: some documents in, not all. */
  partial: number;
  problems: string[];
}

/** A temporary folder with the children built and a fake OpenAI whose replies name the message they answer. */
export async function startCrashWorld() {
  const folder = mkdtempSync(join(tmpdir(), "parley-crash-"));
  const children = await buildChildren();
  const openai = await startFakeOpenAI();
  // A little delay widens the window in which a kill finds a chat between its two commits.
  openai.chat.respondWith((request) => {
    const messages = (request.body as { messages?: Array<{ content?: unknown }> }).messages ?? [];
    return replyWith(`reply to: ${String(messages.at(-1)?.content ?? "")}`, { delayMs: 5 });
  });
  const env: Record<string, string> = {
    PARLEY_DB: join(folder, "parley.db"),
    OPENAI_API_KEY: "sk-crash-test",
    OPENAI_BASE_URL: openai.url,
    PARLEY_SECRET_KEY: "crash-test-master-key-0123456789abcdef",
    PARLEY_KEY_RATE_LIMIT: "1000000",
    PARLEY_CONVERSATION_RATE_LIMIT: "1000000",
  };
  return {
    folder,
    env,
    children,
    close: async () => {
      await openai.close();
      rmSync(folder, { recursive: true, force: true });
      rmSync(children.folder, { recursive: true, force: true });
    },
  };
}

type CrashWorld = Awaited<ReturnType<typeof startCrashWorld>>;

/** A user with a key, two chatbots (one with a session a human agent has taken over) and a webhook. */
async function seedChat(world: CrashWorld, receiverUrl: string, rounds: number) {
  const runtime = openParley(loadConfig(world.env));
  try {
    const { admin } = runtime.parley;
    await admin.setPlan("crash", 100_000_000);
    const user = await admin.createUser({ email: "crash@example.com", plan: "crash" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const bots = [];
    for (const name of ["Crash One", "Crash Two"]) bots.push((await admin.createChatbot({ userId: user.id, name, provider: "openai", model: "gpt-crash" })).id);
    await admin.createWebhookSubscription({ userId: user.id, url: receiverUrl });
    // Worker 1's first session of each round on the second chatbot is a human agent's: those chats answer 202.
    for (let round = 0; round < rounds; round += 1) await admin.startTakeover(bots[1]!, `r${round}-w1-0`);
    return { key, bots };
  } finally {
    runtime.close();
  }
}

/** `kills` rounds of: start the server, load it with chats, SIGKILL it at a random moment. Then restart and check. */
export async function runChatKills(world: CrashWorld, options: { kills: number; seed: number; workers?: number; onKill?: (round: number) => void }): Promise<KillReport> {
  const random = seededRandom(options.seed);
  const receiver = await startFlakyReceiver(seededRandom(options.seed + 1));
  const { key, bots } = await seedChat(world, receiver.url, options.kills);
  const outcomes: ChatOutcome[] = [];
  try {
    for (let round = 0; round < options.kills; round += 1) {
      const server = await startServerChild(world.children.server, world.env);
      const load = startChatLoad({ url: server.url, key, botIds: bots, workers: options.workers ?? 6, tag: `r${round}`, outcomes });
      // The moment is set by the load's progress, not by the clock (a slow machine answers
      // fewer chats in a given time): after 2 to 9 answers, then up to 30 ms more, so the kill
      // lands between any two steps of the chats in flight.
      await Promise.race([load.answered(2 + Math.floor(random() * 8)), server.exited]);
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 30)));
      server.process.kill("SIGKILL");
      await server.exited;
      await load.stop();
      options.onKill?.(round + 1);
    }
    // The last start: everything fired must now be delivered, and a SIGTERM must end it cleanly.
    const server = await startServerChild(world.children.server, world.env);
    const deadline = Date.now() + 30_000;
    while (pendingDeliveries(world.env.PARLEY_DB!) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    server.process.kill("SIGTERM");
    const exit = await server.exited;
    const problems = checkAccounting(world.env.PARLEY_DB!, outcomes, receiver.delivered);
    if (exit.code !== 0) problems.push(`the last server exited with ${exit.code ?? exit.signal} on SIGTERM`);
    const answered = outcomes.filter((outcome) => outcome.status === 200 || outcome.status === 202).length;
    const refused = outcomes.filter((outcome) => outcome.status !== null && outcome.status !== 200 && outcome.status !== 202);
    if (refused.length > 0) problems.push(`${refused.length} chats refused (e.g. ${refused[0]!.status})`);
    return { kills: options.kills, answered, unanswered: outcomes.length - answered - refused.length, webhookAttempts: receiver.attempts(), partial: 0, problems };
  } finally {
    await receiver.close();
  }
}

/** Chunks per source, the search index's own consistency, and SQLite's integrity check. */
function indexState(path: string): { chunks: Record<string, number>; problems: string[] } {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    const problems: string[] = [];
    const integrity = database.pragma("integrity_check", { simple: true });
    if (integrity !== "ok") problems.push(`integrity_check: ${String(integrity)}`);
    const rows = database.prepare("SELECT source, count(*) AS count FROM search_chunks GROUP BY source ORDER BY source").all() as Array<{ source: string; count: number }>;
    for (const { key } of database.prepare("SELECT key FROM search_chatbots").all() as Array<{ key: number }>) {
      const chunks = database.prepare("SELECT count(*) AS count FROM search_chunks WHERE bot = ?").get(key) as { count: number };
      const indexed = database.prepare(`SELECT count(*) AS count FROM search_fts_${key}_docsize`).get() as { count: number };
      if (chunks.count !== indexed.count) problems.push(`chatbot ${key}: ${chunks.count} chunks but ${indexed.count} in its keyword index`);
    }
    return { chunks: Object.fromEntries(rows.map((row) => [row.source, row.count])), problems };
  } finally {
    database.close();
  }
}

/**
 * SIGKILL `afterMs` after the ingest's first batch is committed: timed from its start instead, a
 * busy machine's slow process start would let every kill land before the first write.
 */
async function killOnceWriting(child: Child, path: string, afterMs: number): Promise<void> {
  let exited = false;
  void child.exited.then(() => (exited = true));
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    const count = database.prepare("SELECT count(*) AS count FROM search_chunks");
    while (!exited && (count.get() as { count: number }).count === 0) await new Promise((resolve) => setTimeout(resolve, 10));
  } finally {
    database.close();
  }
  await new Promise((resolve) => setTimeout(resolve, afterMs));
  child.process.kill("SIGKILL");
}

/** `kills` rounds of SIGKILL in the middle of `parley ingest` of a folder, each followed by a full re-run. */
export async function runIngestKills(world: CrashWorld, options: { kills: number; seed: number; files?: number; onKill?: (round: number) => void }): Promise<KillReport> {
  const random = seededRandom(options.seed);
  const documents = join(world.folder, "documents");
  mkdirSync(documents, { recursive: true });
  const words = ["refund", "shipping", "invoice", "warranty", "battery", "screen", "delivery", "account", "password", "order"];
  for (let file = 0; file < (options.files ?? 400); file += 1) {
    const text = Array.from({ length: 200 }, (_, index) => words[(file * 7 + index * 3) % words.length]).join(" ");
    writeFileSync(join(documents, `doc-${file}.md`), `# Document ${file}\n\n${text}\n`);
  }
  const ingest = async (env: Record<string, string>, botId: string, killAfterMs?: number) => {
    const child = startChild(world.children.cli, ["ingest", "--bot", botId, documents], env);
    if (killAfterMs !== undefined) void killOnceWriting(child, env.PARLEY_DB!, killAfterMs);
    return child.exited;
  };
  const botFor = async (path: string) => {
    const runtime = openParley(loadConfig({ ...world.env, PARLEY_DB: path }));
    try {
      const user = await runtime.parley.admin.createUser({ email: "ingest@example.com" });
      return (await runtime.parley.admin.createChatbot({ userId: user.id, name: "Ingest", provider: "openai", model: "gpt-crash" })).id;
    } finally {
      runtime.close();
    }
  };
  // The reference: the same folder ingested without a kill.
  const reference = join(world.folder, "reference.db");
  const referenceExit = await ingest({ ...world.env, PARLEY_DB: reference }, await botFor(reference));
  const expected = indexState(reference).chunks;
  const problems: string[] = referenceExit.code === 0 ? [] : [`the reference ingest exited with ${referenceExit.code}`];
  let partial = 0;
  for (let round = 0; round < options.kills; round += 1) {
    const path = join(world.folder, `ingest-${round}.db`);
    const env = { ...world.env, PARLEY_DB: path };
    const bot = await botFor(path);
    const killed = await ingest(env, bot, Math.floor(random() * 400));
    options.onKill?.(round + 1);
    const after = indexState(path);
    const documentsIn = Object.keys(after.chunks).length;
    if (killed.signal === "SIGKILL" && documentsIn > 0 && documentsIn < Object.keys(expected).length) partial += 1;
    problems.push(...after.problems.map((problem) => `round ${round}, after the kill (${killed.signal ?? killed.code}): ${problem}`));
    const rerun = await ingest(env, bot);
    if (rerun.code !== 0) problems.push(`round ${round}: the re-run exited with ${rerun.code}`);
    const final = indexState(path);
    problems.push(...final.problems.map((problem) => `round ${round}, after the re-run: ${problem}`));
    if (JSON.stringify(final.chunks) !== JSON.stringify(expected)) problems.push(`round ${round}: chunks per document differ from an ingest without a kill`);
  }
  return { kills: options.kills, answered: 0, unanswered: 0, webhookAttempts: 0, partial, problems };
}
