// `npm run bench:unanswered`: what the watch for replies cut off with their process costs on
// SQLite, where its statements run on the server's event loop (docs/operations.md, "Logs and
// shutdown"). A database of N conversations (default 100,000; BENCH_CONVERSATIONS=N), each a
// visitor message and its reply but every hundredth left with the visitor's message alone,
// copied from one real chat; then the watch's look once, timed with the event loop's longest
// delay (the adapter marks in slices of conversations, a turn of the loop between them), and again.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { startFakeOpenAI } from "@parley/providers/testing";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const say = (line: string) => process.stdout.write(`${line}\n`);

const folder = mkdtempSync(join(tmpdir(), "parley-bench-unanswered-"));
const openai = await startFakeOpenAI();
const runtime = openParley(loadConfig({ PATH: "", PARLEY_DB: join(folder, "parley.db"), OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: openai.url }), { log: () => undefined });
try {
  say(`machine: ${cpus()[0]?.model.trim()}, ${cpus().length} cores, Node ${process.version}, load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}`);
  const { parley, database } = runtime;
  const user = await parley.admin.createUser({ email: "bench@example.com" });
  const { key } = await parley.admin.createApiKey({ userId: user.id });
  const bot = await parley.admin.createChatbot({ userId: user.id, name: "Bench", provider: "openai", model: "gpt-test" });
  await parley.chat(await parley.authenticate(key), bot.id, { message: "Where is my parcel?", session_id: "template" });
  const template = database.prepare("SELECT id FROM conversations").pluck().get() as string;

  // Copies of the template's rows, every column as it is but the ids (and, for the unanswered
  // hundredth, the reply left out and the count as the visitor message left it).
  const columns = (table: string) => (database.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all() as string[]).filter((name) => name !== "seq");
  const copy = (table: string, replace: Record<string, string>, where: string) => {
    const names = columns(table);
    const values = names.map((name) => replace[name] ?? name);
    database.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CONVERSATIONS})
      INSERT INTO ${table} (${names.join(", ")}) SELECT ${values.join(", ")} FROM n, ${table} WHERE ${where}`);
  };
  const started = performance.now();
  database.transaction(() => {
    copy("conversations", { id: "printf('c-%d', i)", session_id: "printf('s-%d', i)", message_count: "CASE WHEN i % 100 = 0 THEN 1 ELSE message_count END" }, `id = '${template}'`);
    copy("messages", { id: "printf('m-%d-%s', i, role)", conversation_id: "printf('c-%d', i)" }, `conversation_id = '${template}' AND (role = 'user' OR i % 100 <> 0)`);
  })();
  database.exec("ANALYZE");
  say(`seeded ${CONVERSATIONS.toLocaleString("en")} conversations (${(CONVERSATIONS / 100).toLocaleString("en")} unanswered) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  const watch = parley.createUnansweredWatch();
  for (const round of ["first", "second"]) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const at = performance.now();
    const marked = await watch.runOnce();
    const took = performance.now() - at;
    delay.disable();
    say(`${round} look: marked ${marked.toLocaleString("en")} conversations in ${took.toFixed(1)} ms; the event loop's longest delay meanwhile ${(delay.max / 1e6).toFixed(1)} ms`);
  }
} finally {
  runtime.close();
  await openai.close();
  rmSync(folder, { recursive: true, force: true });
}
