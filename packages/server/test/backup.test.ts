import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startChatLoad, startChild, startServerChild, type ChatOutcome } from "./crash/crash-harness.js";
import { startCrashWorld } from "./crash/crash-rounds.js";
import { call } from "./harness.js";

// The server and the CLI as child processes on real SQLite; the backup is taken while six clients chat.
let world: Awaited<ReturnType<typeof startCrashWorld>>;

beforeAll(async () => {
  world = await startCrashWorld();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

const cli = (args: string[], env: Record<string, string>) => {
  const child = startChild(world.children.cli, args, env);
  let stdout = "";
  child.process.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  return child.exited.then(({ code }) => ({ code, stdout, stderr: child.stderr() }));
};

/** Integrity, the accounting, and each reply right after the message it answers; the counts found. */
function checkConsistent(path: string) {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
    const messages = database.prepare("SELECT conversation_id, role, content FROM messages ORDER BY seq").all() as Array<{ conversation_id: string; role: string; content: string }>;
    const lastOf = new Map<string, { role: string; content: string }>();
    for (const message of messages) {
      const previous = lastOf.get(message.conversation_id);
      if (message.role === "assistant") expect({ previous: previous?.content, reply: message.content }).toEqual({ previous: previous?.content, reply: `reply to: ${previous?.content}` });
      lastOf.set(message.conversation_id, message);
    }
    const users = messages.filter((message) => message.role === "user").length;
    const { used } = database.prepare("SELECT coalesce(sum(used), 0) AS used FROM monthly_usage").get() as { used: number };
    expect(used).toBe(users);
    const events = database.prepare("SELECT count(*) AS count FROM outbox_events WHERE type = 'message.received'").get() as { count: number };
    expect(events.count).toBe(users);
    return { users, replies: messages.length - users };
  } finally {
    database.close();
  }
}

describe("parley backup --to FILE", () => {
  it("copies a live database during a chat load; the restored copy is consistent and serves", async () => {
    const runtime = openParley(loadConfig(world.env));
    const { admin } = runtime.parley;
    await admin.setPlan("backup", 100_000_000);
    const user = await admin.createUser({ email: "backup@example.com", plan: "backup" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const bot = await admin.createChatbot({ userId: user.id, name: "Backed up", provider: "openai", model: "gpt-test" });
    runtime.close();

    const server = await startServerChild(world.children.server, world.env);
    const outcomes: ChatOutcome[] = [];
    const load = startChatLoad({ url: server.url, key, botIds: [bot.id], workers: 6, tag: "backup", outcomes });
    await expect.poll(() => outcomes.filter((outcome) => outcome.status === 200).length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(30);
    const backupPath = join(world.folder, "backup.db");
    const backup = await cli(["backup", "--to", backupPath], world.env);
    // A chat answered after the backup ended is in the live database and cannot be in the copy,
    // however far the load got meanwhile.
    const after = await call(`${server.url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "after the backup", session_id: "after-backup" } });
    expect(after).toMatchObject({ status: 200, json: { response: "reply to: after the backup" } });
    await load.stop();
    server.process.kill("SIGTERM");
    expect(await server.exited).toEqual({ code: 0, signal: null });

    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toEqual({ to: backupPath, bytes: statSync(backupPath).size, pages: expect.any(Number), key_file: null });
    // Every conversation is in the copy: only its owner may read it (it was 0644).
    expect(statSync(backupPath).mode & 0o777).toBe(0o600);
    const copied = checkConsistent(backupPath);
    const live = checkConsistent(world.env.PARLEY_DB!);
    // The copy was taken mid-load: it has messages, and fewer than were stored by the end.
    expect(copied.users).toBeGreaterThan(0);
    expect(copied.users).toBeLessThan(live.users);

    // Restoring is copying the file into place while no server runs; the restored database serves.
    const restoredPath = join(world.folder, "restored.db");
    copyFileSync(backupPath, restoredPath);
    const restored = await startServerChild(world.children.server, { ...world.env, PARLEY_DB: restoredPath });
    const answer = await call(`${restored.url}/v1/chatbots/${bot.id}/chat`, { key, body: { message: "after the restore", session_id: "restored" } });
    expect(answer).toMatchObject({ status: 200, json: { response: "reply to: after the restore" } });
    restored.process.kill("SIGTERM");
    expect(await restored.exited).toEqual({ code: 0, signal: null });
    expect(checkConsistent(restoredPath).users).toBe(copied.users + 1);
  }, 120_000);

  it("refuses to overwrite an existing file", async () => {
    const existing = join(world.folder, "existing.db");
    copyFileSync(world.env.PARLEY_DB!, existing);
    const result = await cli(["backup", "--to", existing], world.env);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`parley backup: --to ${existing} exists; remove it or choose another file.\n`);
  }, 60_000);
});
