// The list route's core calls in process, without HTTP: `authenticate`, `admitRequest` and
// `listChatbots` on a SQLite database with 2,000 keys, and the two ways of checking for other
// connections' commits (`PRAGMA data_version`, a pread of the wal-index header); then a
// chat's history read with its LIMIT as a bare parameter and cast, as the adapter writes it
// (docs/architecture.md: SQLite prepares the first again at every run).
// `node --conditions=source --import tsx packages/server/bench/storage-reads.ts`
import { closeSync, mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";

const KEYS = 2_000;
const CALLS = 50_000;

const folder = mkdtempSync(join(tmpdir(), "parley-storage-reads-"));
const runtime = openParley(loadConfig({ PATH: "", PARLEY_DB: join(folder, "parley.db"), PARLEY_KEY_RATE_LIMIT: "1000000" }));
try {
  const { parley, database } = runtime;
  const user = await parley.admin.createUser({ email: "bench@example.com" });
  const keys: string[] = [];
  for (let index = 0; index < KEYS; index += 1) keys.push((await parley.admin.createApiKey({ userId: user.id })).key);
  await parley.admin.createChatbot({ userId: user.id, name: "Bench", provider: "openai", model: "m" });
  const callers = await Promise.all(keys.slice(0, 10).map((key) => parley.authenticate(key)));
  const dataVersion = database.prepare("PRAGMA data_version").pluck();
  const totalChanges = database.prepare("SELECT total_changes()").pluck();
  const shm = openSync(`${join(folder, "parley.db")}-shm`, "r");
  const header = new Uint8Array(48);
  const history = (limit: string) => database.prepare(`SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT ${limit}`);
  const [bareLimit, castLimit] = [history("?"), history("CAST(? AS INTEGER)")];

  /** Mean µs a call, after a tenth as many calls of warm-up. */
  const time = async (name: string, call: (index: number) => unknown) => {
    for (let index = 0; index < CALLS / 10; index += 1) await call(index);
    const started = performance.now();
    for (let index = 0; index < CALLS; index += 1) await call(index);
    process.stdout.write(`${name.padEnd(40)} ${(((performance.now() - started) / CALLS) * 1000).toFixed(2)} µs\n`);
  };
  for (let round = 1; round <= 2; round += 1) {
    process.stdout.write(`round ${round}\n`);
    await time("authenticate (2,000 keys in turn)", (index) => parley.authenticate(keys[index % KEYS]));
    await time("listChatbots", (index) => parley.listChatbots(callers[index % callers.length]!));
    await time("admitRequest", (index) => parley.admitRequest(callers[index % callers.length]!));
    await time("PRAGMA data_version", () => dataVersion.get());
    await time("wal-index header (pread of 48 bytes)", () => readSync(shm, header, 0, 48, 0));
    await time("SELECT total_changes()", () => totalChanges.get());
    await time("history read, LIMIT ?", () => bareLimit.all("conversation", 10));
    await time("history read, LIMIT CAST(? AS INTEGER)", () => castLimit.all("conversation", 10));
  }
  closeSync(shm);
} finally {
  runtime.close();
  rmSync(folder, { recursive: true, force: true });
}
