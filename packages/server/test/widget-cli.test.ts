import { readFileSync } from "node:fs";
import Database from "better-sqlite3";
import { createDerivedWidgetSecrets, widgetUserHash } from "@parley/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { environment } from "./harness.js";
import { runCliHere } from "./webhook-test-support.js";

let context: Awaited<ReturnType<typeof environment>>;
beforeAll(async () => {
  context = await environment();
});
afterAll(async () => {
  await context?.cleanup();
});

const cli = (...args: string[]) => runCliHere(args, context.env);

describe("parley widget commands", () => {
  it("show, on, off, set and secret print the widget's JSON; bad values fail with the API's text and change nothing", async () => {
    const user = (await cli("user", "create", "--email", "widget@example.com")).json!;
    const bot = (await cli("bot", "create", "--user", user.id as string, "--name", "Kettle Help", "--provider", "openai", "--model", "gpt-test")).json!;
    const id = bot.id as string;
    const off = {
      enabled: false,
      allowed_origins: [],
      title: "Kettle Help",
      welcome_message: "",
      starter_questions: [],
      accent_color: "#2563eb",
      position: "right",
      identity_required: false,
      has_secret: false,
    };
    expect(await cli("widget", "show", id)).toMatchObject({ code: 0, stderr: "", json: off });
    expect((await cli("widget", "on", id)).json).toEqual({ ...off, enabled: true });

    const set = await cli(
      "widget", "set", id,
      "--origin", "https://shop.example.com", "--origin", "http://localhost:8080",
      "--title", "Ask Kettle", "--welcome", "Hello!", "--question", "How do I descale it?", "--question", "Is it safe?",
      "--color", "#0F766E", "--position", "left", "--identity-required", "true",
    );
    const configured = {
      ...off,
      enabled: true,
      allowed_origins: ["https://shop.example.com", "http://localhost:8080"],
      title: "Ask Kettle",
      welcome_message: "Hello!",
      starter_questions: ["How do I descale it?", "Is it safe?"],
      accent_color: "#0f766e",
      position: "left",
      identity_required: true,
    };
    expect(set).toMatchObject({ code: 0, json: configured });
    // Only what is given changes; the lists are replaced or cleared whole.
    expect((await cli("widget", "set", id, "--clear-questions", "--default-title")).json).toEqual({ ...configured, starter_questions: [], title: "Kettle Help" });
    expect((await cli("widget", "off", id)).json).toMatchObject({ enabled: false, allowed_origins: configured.allowed_origins });

    const before = (await cli("widget", "show", id)).json;
    expect(await cli("widget", "set", id, "--origin", "https://shop.example.com/")).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "parley widget set: widget.allowed_origins.0: must be an origin written scheme://host[:port], such as https://example.com (http or https, lower case, no path, no wildcard, no trailing slash)\n",
    });
    expect(await cli("widget", "set", id, "--position", "top")).toMatchObject({ code: 1, stderr: "parley widget set: widget.position: must be one of right, left\n" });
    expect(await cli("widget", "set", id, "--identity-required", "yes")).toMatchObject({ code: 2, stderr: expect.stringContaining("--identity-required must be true or false") });
    expect(await cli("widget", "set", id)).toMatchObject({ code: 2, stderr: expect.stringContaining("Nothing to set") });
    expect(await cli("widget", "show", "00000000-0000-4000-8000-000000000000")).toMatchObject({ code: 1, stderr: `parley widget show: Chatbot not found (database ${context.env.PARLEY_DB}).\n` });
    expect((await cli("widget", "show", id)).json).toEqual(before);

    // The secret: printed once, derived from the key file made for it and the stored nonce.
    const made = await cli("widget", "secret", id);
    expect(made.code).toBe(0);
    expect(Object.keys(made.json!)).toEqual(["secret"]);
    const secret = made.json!.secret as string;
    expect(secret).toMatch(/^wsec_[A-Za-z0-9_-]{43}$/);
    expect((await cli("widget", "show", id)).json).toMatchObject({ has_secret: true });
    const key = Buffer.from(readFileSync(`${context.env.PARLEY_DB}.key`, "utf8").trim(), "utf8");
    const nonce = () => {
      const database = new Database(context.env.PARLEY_DB!, { readonly: true });
      try {
        return (database.prepare("SELECT widget_secret_nonce FROM chatbots WHERE id = ?").get(id) as { widget_secret_nonce: string }).widget_secret_nonce;
      } finally {
        database.close();
      }
    };
    expect(createDerivedWidgetSecrets(key).secretFor(id, nonce())).toBe(secret);
    const rotated = (await cli("widget", "secret", id)).json!.secret as string;
    expect(rotated).not.toBe(secret);
    expect(createDerivedWidgetSecrets(key).secretFor(id, nonce())).toBe(rotated);
    expect(widgetUserHash(rotated, "u")).not.toBe(widgetUserHash(secret, "u"));
  }, 60_000);
});
