import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDerivedWebhookSecrets } from "@parley/core";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { environment } from "./harness.js";
import { runCliHere, startReceiver } from "./webhook-test-support.js";

let context: Awaited<ReturnType<typeof environment>>;
beforeAll(async () => {
  context = await environment();
});
afterAll(async () => {
  await context?.cleanup();
});

const cli = (...args: string[]) => runCliHere(args, context.env);
/** The database and its WAL (when there is one) as one text, to look for secrets. A missing database fails. */
const databaseText = (path: string) => [path, ...(existsSync(`${path}-wal`) ? [`${path}-wal`] : [])].map((file) => readFileSync(file).toString("latin1")).join("");

describe("parley webhook commands", () => {
  it("add, list, deliveries, retry and remove print their JSON documents; no secret reaches the database", async () => {
    const user = (await cli("user", "create", "--email", "hooks@example.com")).json!;
    const bot = (await cli("bot", "create", "--user", user.id as string, "--name", "Hooks", "--provider", "openai", "--model", "gpt-test")).json!;
    const receiver = await startReceiver(500);
    const added = (await cli("webhook", "add", "--user", user.id as string, "--url", receiver.url, "--bot", bot.id as string, "--event", "conversation.started")).json!;
    expect(Object.keys(added)).toEqual(["id", "secret"]);
    const stored = databaseText(context.env.PARLEY_DB!);
    // The text read is the one the subscription was written to: its id, URL and owner are in it.
    for (const written of [added.id as string, receiver.url, "hooks@example.com"]) expect(stored).toContain(written);
    expect(stored).not.toContain("whsec_");
    expect(stored).not.toContain((added.secret as string).slice(6));
    expect(statSync(`${context.env.PARLEY_DB}.key`).mode & 0o777).toBe(0o600);

    expect((await cli("webhook", "list", "--user", user.id as string)).json).toEqual({
      webhooks: [{ id: added.id, url: receiver.url, chatbot_id: bot.id, events: ["conversation.started"], created_at: expect.stringMatching(/\+00:00$/), signing_key_matches: true }],
    });
    expect((await cli("webhook", "deliveries")).json).toEqual({ deliveries: [] });

    // A takeover on a new session writes conversation.started; one dispatcher pass meets the 500.
    const runtime = openParley(loadConfig(context.env));
    await runtime.parley.admin.startTakeover(bot.id as string, "visitor-1");
    expect(await runtime.dispatcher.runOnce()).toMatchObject([{ outcome: "retry", responseStatus: 500 }]);
    runtime.close();
    const pending = (await cli("webhook", "deliveries", "--status", "pending")).json!.deliveries as Record<string, unknown>[];
    expect(pending).toEqual([
      {
        id: receiver.requests[0]!.headers["webhook-id"], subscription_id: added.id, event_id: expect.any(String), event_type: "conversation.started",
        status: "pending", attempts: 1, next_attempt_at: expect.any(String), last_attempt_at: expect.any(String), last_response_status: 500,
        last_error: "HTTP 500", created_at: expect.any(String), delivered_at: null,
      },
    ]);
    const retried = (await cli("webhook", "retry", pending[0]!.id as string)).json!;
    expect(retried).toMatchObject({ id: pending[0]!.id, status: "pending", attempts: 1 });
    expect(Date.parse(retried.next_attempt_at as string)).toBeLessThanOrEqual(Date.now());

    expect((await cli("webhook", "remove", added.id as string)).json).toEqual({ id: added.id, removed: true });
    expect((await cli("webhook", "deliveries", "--status", "failed", "--limit", "5")).json).toMatchObject({ deliveries: [{ id: pending[0]!.id, status: "failed", last_error: "subscription removed" }] });
    expect(await cli("webhook", "remove", added.id as string)).toMatchObject({ code: 1, stdout: "", stderr: `parley webhook remove: Webhook subscription ${added.id} not found (database ${context.env.PARLEY_DB}).\n` });
    expect(await cli("webhook", "retry", pending[0]!.id as string)).toMatchObject({ code: 1, stderr: `parley webhook retry: Delivery ${pending[0]!.id} not found (database ${context.env.PARLEY_DB}).\n` });
    expect(await cli("webhook", "deliveries", "--status", "lost")).toMatchObject({ code: 1, stderr: "parley webhook deliveries: status: must be one of pending, delivered, failed\n" });
    await receiver.close();
  });

  it("derives secrets from PARLEY_SECRET_KEY when it is set, and refuses one that is too short", async () => {
    const secretKey = "an operator-chosen key of at least 32 characters";
    const env = { ...context.env, PARLEY_DB: `${context.folder}/with-env-key.db`, PARLEY_SECRET_KEY: secretKey };
    const user = (await runCliHere(["user", "create", "--email", "env@example.com"], env)).json!;
    const added = (await runCliHere(["webhook", "add", "--user", user.id as string, "--url", "https://example.com/hook"], env)).json!;
    expect(added.secret).toBe(createDerivedWebhookSecrets(Buffer.from(secretKey)).secretFor(added.id as string));
    expect(() => statSync(`${env.PARLEY_DB}.key`)).toThrow(/ENOENT/);
    const short = await runCliHere(["webhook", "list", "--user", user.id as string], { ...env, PARLEY_SECRET_KEY: "too short" });
    expect(short).toMatchObject({ code: 1, stderr: "parley webhook list: PARLEY_SECRET_KEY must be at least 32 characters long (got 9).\n" });
  });
});

describe("the webhook master key file", () => {
  it("is never replaced when missing: deliveries wait for it, and resume once it is restored", async () => {
    const env = { ...context.env, PARLEY_DB: `${context.folder}/lost-key.db` };
    const keyFile = `${env.PARLEY_DB}.key`;
    const user = (await runCliHere(["user", "create", "--email", "lost@example.com"], env)).json!;
    const bot = (await runCliHere(["bot", "create", "--user", user.id as string, "--name", "Bot", "--provider", "openai", "--model", "gpt-test"], env)).json!;
    expect(existsSync(keyFile)).toBe(false); // nothing needed a key yet
    const receiver = await startReceiver();
    const added = (await runCliHere(["webhook", "add", "--user", user.id as string, "--url", receiver.url], env)).json!;
    const saved = readFileSync(keyFile);
    rmSync(keyFile);
    expect((await runCliHere(["webhook", "list", "--user", user.id as string], env)).json).toMatchObject({ webhooks: [{ id: added.id, signing_key_matches: false }] });

    const runtime = openParley(loadConfig(env));
    try {
      await runtime.parley.admin.startTakeover(bot.id as string, "visitor-1");
      const [waiting] = await runtime.dispatcher.runOnce();
      expect(waiting).toMatchObject({ outcome: "retry", error: `signing key unavailable: No webhook master key: set PARLEY_SECRET_KEY, or restore the key file ${keyFile}.` });
      expect(existsSync(keyFile)).toBe(false);
      expect(receiver.requests).toHaveLength(0);

      // Restored while the process runs: the next attempt uses it, and the old secret verifies.
      writeFileSync(keyFile, saved, { mode: 0o600 });
      await runtime.parley.admin.retryWebhookDelivery(waiting!.deliveryId);
      expect(await runtime.dispatcher.runOnce()).toMatchObject([{ outcome: "delivered" }]);
      expect(() => new Webhook(added.secret as string).verify(receiver.requests[0]!.body, receiver.requests[0]!.headers)).not.toThrow();
    } finally {
      runtime.close();
      await receiver.close();
    }
  });
});
