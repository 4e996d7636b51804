import { existsSync, rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { environment } from "./harness.js";

// Widget identity secrets come from the same master key as webhook secrets (docs/design.md §14):
// the first one creates the key file, a restart derives the same secret, and once a secret exists
// a missing key file is an error rather than a new key that would silently change every secret.

let context: Awaited<ReturnType<typeof environment>>;
beforeAll(async () => {
  context = await environment();
});
afterAll(async () => {
  await context?.cleanup();
});

describe("the widget secret's master key on SQLite", () => {
  it("is created by the first secret, gives the same secret after a restart, and is never silently replaced", async () => {
    const keyFile = `${context.env.PARLEY_DB}.key`;
    const first = openParley(loadConfig(context.env), { log: () => {} });
    const { admin } = first.parley;
    const user = await admin.createUser({ email: "keys@example.com" });
    const bot = await admin.createChatbot({ userId: user.id, name: "Keyed", provider: "openai", model: "gpt-test" });
    await admin.changeWidget(bot.id, { enabled: true });
    expect(existsSync(keyFile)).toBe(false);
    const { secret } = await admin.createWidgetSecret(bot.id);
    expect(existsSync(keyFile)).toBe(true);
    first.close();

    const second = openParley(loadConfig(context.env), { log: () => {} });
    expect(second.parley.widgetSecret(await second.parley.widgetChatbot(bot.id))).toBe(secret);
    second.close();

    rmSync(keyFile);
    const third = openParley(loadConfig(context.env), { log: () => {} });
    expect(() => third.parley.widgetSecret({ id: bot.id, widgetSecretNonce: "any" })).toThrow(/No webhook master key/);
    await expect(third.parley.admin.createWidgetSecret(bot.id)).rejects.toThrow(/No webhook master key/);
    expect(existsSync(keyFile)).toBe(false);
    third.close();
  });
});
