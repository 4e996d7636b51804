import { existsSync } from "node:fs";
import { PassThrough } from "node:stream";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS, main } from "../src/cli.js";
import { environment, runCli } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  context = await environment();
});

afterAll(async () => {
  await context?.cleanup();
});

/** Every row of every table of a database file, to compare before and after a command. */
function snapshot(path: string): Record<string, unknown[]> {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    const tables = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name").pluck().all() as string[];
    return Object.fromEntries(tables.map((table) => [table, database.prepare(`SELECT * FROM "${table}"`).raw().all()]));
  } finally {
    database.close();
  }
}

/** The plans a database file holds, by name. */
function plansIn(path: string): unknown[] {
  const database = new BetterSqlite3(path, { readonly: true });
  try {
    return database.prepare("SELECT name, monthly_messages FROM plans ORDER BY name").all();
  } finally {
    database.close();
  }
}

/** Runs the CLI's main in this process (the same code the bin runs), collecting what it prints. */
async function mainHere(argv: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const [stdout, stderr] = [new PassThrough(), new PassThrough()];
  const text = { stdout: "", stderr: "" };
  stdout.on("data", (chunk: Buffer) => (text.stdout += chunk));
  stderr.on("data", (chunk: Buffer) => (text.stderr += chunk));
  const code = await main(argv, { stdout, stderr, env });
  return { code, ...text };
}

describe("the parley CLI", () => {
  it("prints exactly the JSON documents of docs/design.md §6", async () => {
    const cli = (...args: string[]) => runCli(args, context.env);
    expect((await cli("plan", "set", "pro", "--monthly-messages", "5000")).json).toEqual({ name: "pro", monthly_messages: 5000 });
    const user = (await cli("user", "create", "--email", "cli@example.com", "--plan", "pro")).json as Record<string, string>;
    expect(Object.keys(user)).toEqual(["id", "email", "plan"]);
    expect(user).toMatchObject({ email: "cli@example.com", plan: "pro" });
    const key = (await cli("key", "create", "--user", user.id!, "--name", "ci")).json as Record<string, string>;
    expect(Object.keys(key)).toEqual(["id", "key", "scope"]);
    expect(key.key).toMatch(/^prl_[A-Za-z0-9_-]{43}$/);
    const bot = (await cli("bot", "create", "--user", user.id!, "--name", "Café Bot", "--provider", "anthropic", "--model", "claude-test", "--fallback-message", "No idea."))
      .json as Record<string, unknown>;
    expect(Object.keys(bot)).toEqual(["id", "name", "slug", "provider", "is_active", "created_at", "system_prompt", "fallback_message"]);
    expect(bot).toMatchObject({ slug: "cafe-bot", provider: "anthropic", is_active: true, fallback_message: "No idea." });
    const webhook = (await cli("webhook", "add", "--user", user.id!, "--url", "https://example.com/hook", "--event", "message.received")).json as Record<string, string>;
    expect(Object.keys(webhook)).toEqual(["id", "secret"]);
    expect(webhook.secret).toMatch(/^whsec_/);
    expect((await cli("takeover", "start", "--bot", bot.id as string, "--session", "s")).json).toEqual({ conversation_id: expect.any(String), human_takeover: true });
    expect((await cli("takeover", "reply", "--bot", bot.id as string, "--session", "s", "--message", "Hello from Dana")).json).toMatchObject({ message_id: expect.any(String) });
    const shown = (await cli("conversation", "show", "--bot", bot.id as string, "--session", "s")).json as { messages: unknown[] };
    expect(shown).toMatchObject({ human_takeover: true, messages: [{ role: "assistant", content: "Hello from Dana", created_at: expect.stringMatching(/\.\d{6}\+00:00$/) }] });
    expect((await cli("bot", "delete", bot.id as string)).json).toEqual({ id: bot.id, deleted: true });
  }, 60_000);

  it("fails with one line on stderr and a non-zero exit, and changes nothing", async () => {
    const path = context.env.PARLEY_DB!;
    expect((await mainHere(["plan", "set", "before-failures", "--monthly-messages", "7"], context.env)).code).toBe(0);
    const before = snapshot(path);
    expect(before.plans).toContainEqual(expect.arrayContaining(["before-failures", 7]));
    const unknownUser = await runCli(["key", "create", "--user", "00000000-0000-4000-8000-000000000000"], context.env);
    // What is not found is named with the database looked in, where a mistyped PARLEY_DB shows.
    expect(unknownUser).toMatchObject({ code: 1, stdout: "", stderr: `parley key create: User 00000000-0000-4000-8000-000000000000 not found (database ${path}).\n` });
    const missingFlag = await runCli(["user", "create"], context.env);
    expect(missingFlag).toMatchObject({ code: 2, stdout: "", stderr: "parley user create: --email is required.\n" });
    const unknownFlag = await runCli(["user", "create", "--email", "a@b.c", "--colour", "red"], context.env);
    expect(unknownFlag).toMatchObject({ code: 2, stdout: "" });
    expect(unknownFlag.stderr).toMatch(/^parley user create: Unknown option '--colour'[^\n]*\n$/);
    const badProvider = await runCli(["bot", "create", "--user", "x", "--name", "n", "--provider", "gemini", "--model", "m"], context.env);
    expect(badProvider).toMatchObject({ code: 1, stdout: "", stderr: "parley bot create: provider: must be one of openai, anthropic, ollama\n" });
    const unknownCommand = await runCli(["frobnicate"], context.env);
    expect(unknownCommand).toMatchObject({ code: 2, stdout: "", stderr: 'parley: unknown command "frobnicate". Run "parley --help" for the list.\n' });
    expect(snapshot(path)).toEqual(before);
  }, 60_000);

  it("prints help for every command in its table, the list and each command's own", async () => {
    const help = await runCli(["--help"], context.env);
    expect(help.code).toBe(0);
    // docs/design.md §6's commands are all in the table (so the loop below cannot pass on an empty one).
    const documented = ["serve", "plan set", "user create", "key create", "key revoke", "bot create", "bot pause", "bot resume", "bot delete", "ingest", "reindex"];
    documented.push("takeover start", "takeover end", "takeover reply", "conversation show", "webhook add", "webhook list", "webhook remove", "webhook deliveries", "webhook retry");
    expect(COMMANDS.map((command) => command.name)).toEqual(expect.arrayContaining(documented));
    for (const command of COMMANDS) {
      expect(help.stdout).toContain(`  ${command.usage}\n      ${command.summary}\n`);
      const words = command.name.split(" ");
      expect(await mainHere([...words, "--help"]), command.name).toEqual({ code: 0, stdout: `Usage: ${command.usage}\n\n${command.summary}\n`, stderr: "" });
      expect(command.usage.startsWith(`parley ${command.name}`), command.usage).toBe(true);
    }
    expect((await mainHere(["ingest", "--help"])).stdout).toMatch(/^Usage: parley ingest --bot BOT_ID PATH\|URL\.\.\./);
  });

  it("reads the database from --db over PARLEY_DB, and refuses a bad configuration value clearly", async () => {
    const elsewhere = `${context.folder}/other.db`;
    const environmentDb = `${context.folder}/from-environment.db`;
    const env = { ...context.env, PARLEY_DB: environmentDb };
    expect((await runCli(["plan", "set", "flag-wins", "--monthly-messages", "1", "--db", elsewhere], env)).code).toBe(0);
    expect(plansIn(elsewhere)).toContainEqual({ name: "flag-wins", monthly_messages: 1 });
    expect(existsSync(environmentDb)).toBe(false);
    expect((await mainHere(["plan", "set", "from-environment", "--monthly-messages", "2"], env)).code).toBe(0);
    expect(plansIn(environmentDb)).toContainEqual({ name: "from-environment", monthly_messages: 2 });
    expect(plansIn(elsewhere)).not.toContainEqual(expect.objectContaining({ name: "from-environment" }));
    const bad = await runCli(["plan", "set", "x", "--monthly-messages", "1"], { ...context.env, PARLEY_KEY_RATE_LIMIT: "lots" });
    expect(bad.stderr).toBe('parley plan set: PARLEY_KEY_RATE_LIMIT must be a whole number from 1 to 1000000 (got "lots").\n');
  });
});
