import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environment, runCli } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  context = await environment();
});

afterAll(async () => {
  await context?.cleanup();
});

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
    const unknownUser = await runCli(["key", "create", "--user", "00000000-0000-4000-8000-000000000000"], context.env);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stdout).toBe("");
    expect(unknownUser.stderr).toBe("parley key create: User 00000000-0000-4000-8000-000000000000 not found.\n");
    const missingFlag = await runCli(["user", "create"], context.env);
    expect(missingFlag.code).toBe(2);
    expect(missingFlag.stderr.trim().split("\n")).toHaveLength(1);
    const unknownFlag = await runCli(["user", "create", "--email", "a@b.c", "--colour", "red"], context.env);
    expect(unknownFlag.code).toBe(2);
    expect(unknownFlag.stderr).toMatch(/^parley user create: .*--colour/);
    const badProvider = await runCli(["bot", "create", "--user", "x", "--name", "n", "--provider", "gemini", "--model", "m"], context.env);
    expect(badProvider.stderr).toBe("parley bot create: provider: must be one of openai, anthropic, ollama\n");
    const unknownCommand = await runCli(["frobnicate"], context.env);
    expect(unknownCommand.code).toBe(2);
  }, 60_000);

  it("prints help for every command", async () => {
    const help = await runCli(["--help"], context.env);
    expect(help.code).toBe(0);
    for (const command of ["plan set", "user create", "key create", "key revoke", "bot create", "bot pause", "ingest", "takeover start", "webhook add", "conversation show", "serve"]) {
      expect(help.stdout).toContain(`parley ${command}`);
    }
    const one = await runCli(["ingest", "--help"], context.env);
    expect(one.stdout).toMatch(/^Usage: parley ingest --bot BOT_ID PATH\.\.\./);
  });

  it("reads the database from --db over PARLEY_DB, and refuses a bad configuration value clearly", async () => {
    const elsewhere = `${context.folder}/other.db`;
    expect((await runCli(["plan", "set", "x", "--monthly-messages", "1", "--db", elsewhere], context.env)).code).toBe(0);
    const bad = await runCli(["plan", "set", "x", "--monthly-messages", "1"], { ...context.env, PARLEY_KEY_RATE_LIMIT: "lots" });
    expect(bad.stderr).toBe('parley plan set: PARLEY_KEY_RATE_LIMIT must be a whole number from 1 to 1000000 (got "lots").\n');
  });
});
