import { readFileSync } from "node:fs";
import { createDerivedWidgetSecrets, widgetUserHash } from "@parley/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { viewValidators } from "./openapi-support.js";
import { startOperatorServer, TIME, UNKNOWN_ID, type OperatorServer } from "./admin-test-support.js";
import { openEventStream } from "./sse-client.js";

// The owner's side of the chat widget (docs/design.md §14): its settings in the admin view,
// PATCHed in parts, and the identity secret.

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});

const DEFAULT_VIEW = {
  enabled: false,
  allowed_origins: [],
  welcome_message: "",
  starter_questions: [],
  accent_color: "#2563eb",
  position: "right",
  identity_required: false,
  has_secret: false,
};

const widgetRow = (id: string) => server.runtime.database.prepare("SELECT widget, widget_secret_nonce FROM chatbots WHERE id = ?").get(id) as { widget: string; widget_secret_nonce: string | null };

describe("the widget's settings in the operator API", () => {
  it("shows a new chatbot's widget off, titled with the chatbot's name, with no secret", async () => {
    const { api, alice } = server;
    const created = await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Kettle Help", provider: "openai", model: "gpt-test" });
    expect(created.status).toBe(201);
    expect(created.json.widget).toEqual({ ...DEFAULT_VIEW, title: "Kettle Help" });
    expect(viewValidators.AdminChatbot(created.json), JSON.stringify(viewValidators.AdminChatbot.errors)).toBe(true);
    const listed = await api(alice.adminKey, "GET", "/v1/admin/chatbots");
    expect(listed.json.data.every((bot: { widget: { enabled: boolean } }) => bot.widget.enabled === false)).toBe(true);
  });

  it("changes any part of the widget and keeps the rest; a null title goes back to the chatbot's name", async () => {
    const { api, alice } = server;
    const id = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Parts", provider: "openai", model: "gpt-test" })).json.id as string;
    const first = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, {
      widget: { enabled: true, allowed_origins: ["https://shop.example.com", "http://localhost:8080", "https://shop.example.com"], title: "  Ask us  ", accent_color: "#0F766E" },
    });
    expect(first.status).toBe(200);
    expect(first.json.widget).toEqual({
      ...DEFAULT_VIEW,
      enabled: true,
      // Repeated origins are kept once; the title is trimmed; the colour lower-cased.
      allowed_origins: ["https://shop.example.com", "http://localhost:8080"],
      title: "Ask us",
      accent_color: "#0f766e",
    });
    expect(viewValidators.AdminChatbot(first.json), JSON.stringify(viewValidators.AdminChatbot.errors)).toBe(true);

    const second = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, {
      name: "Parts Desk",
      widget: { welcome_message: "Hello!\nHow can we help?", starter_questions: ["Where is my order?", "Can I return it?"], position: "left", identity_required: true },
    });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ name: "Parts Desk" });
    expect(second.json.widget).toEqual({
      ...first.json.widget,
      welcome_message: "Hello!\nHow can we help?",
      starter_questions: ["Where is my order?", "Can I return it?"],
      position: "left",
      identity_required: true,
    });
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`)).json.widget).toEqual(second.json.widget);

    const untitled = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { widget: { title: null, allowed_origins: [] } });
    expect(untitled.json.widget).toMatchObject({ title: "Parts Desk", allowed_origins: [], enabled: true });
    // Stored: the title unset (it follows the chatbot's name), never the resolved one.
    expect(JSON.parse(widgetRow(id).widget)).toMatchObject({ title: null });
    const renamed = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { name: "Renamed" });
    expect(renamed.json.widget.title).toBe("Renamed");
  });

  it("refuses a bad part with 422 naming the field, and changes nothing", async () => {
    const { api, alice } = server;
    const id = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Strict", provider: "openai", model: "gpt-test" })).json.id as string;
    const before = widgetRow(id);
    const ORIGIN = "must be an origin written scheme://host[:port], such as https://example.com (http or https, lower case, no path, no wildcard, no trailing slash)";
    const cases: [unknown, string][] = [
      [{ allowed_origins: ["https://ok.example.com", "https://example.com/shop"] }, `widget.allowed_origins.1: ${ORIGIN}`],
      [{ allowed_origins: ["https://example.com/"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["https://*.example.com"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["*"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["example.com"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["ftp://example.com"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["https://Example.com"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["https://example.com:443"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: ["https://user@example.com"] }, `widget.allowed_origins.0: ${ORIGIN}`],
      [{ allowed_origins: Array.from({ length: 21 }, (_, n) => `https://site${n}.example.com`) }, "widget.allowed_origins: must hold at most 20 items"],
      [{ allowed_origins: "https://example.com" }, "widget.allowed_origins: must be an array"],
      [{ title: "t".repeat(81) }, "widget.title: must be at most 80 characters"],
      [{ title: "   " }, "widget.title: must be a non-empty string"],
      [{ welcome_message: "w".repeat(501) }, "widget.welcome_message: must be at most 500 characters"],
      [{ starter_questions: ["a", "b", "c", "d", "e"] }, "widget.starter_questions: must hold at most 4 items"],
      [{ starter_questions: ["fine", "q".repeat(121)] }, "widget.starter_questions.1: must be at most 120 characters"],
      [{ starter_questions: [" "] }, "widget.starter_questions.0: must be a non-empty string"],
      [{ accent_color: "blue" }, "widget.accent_color: must be a colour written #rrggbb, e.g. #2563eb"],
      [{ accent_color: "#12345" }, "widget.accent_color: must be a colour written #rrggbb, e.g. #2563eb"],
      [{ position: "top" }, "widget.position: must be one of right, left"],
      [{ enabled: "yes" }, "widget.enabled: must be a boolean"],
      [{ identity_required: 1 }, "widget.identity_required: must be a boolean"],
      [{ colour: "#ffffff" }, "widget.colour: is not a widget setting"],
      ["on", "widget: must be an object"],
    ];
    for (const [widget, detail] of cases) {
      const answer = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { widget });
      expect({ widget, status: answer.status, body: answer.json }).toEqual({ widget, status: 422, body: { detail } });
    }
    // A good name with a bad widget: nothing of the request is applied.
    expect((await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { name: "Changed", widget: { enabled: true, position: "top" } })).status).toBe(422);
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`)).json).toMatchObject({ name: "Strict", widget: { enabled: false } });
    expect(widgetRow(id)).toEqual(before);
  });

  it("refuses another owner's chatbot as missing", async () => {
    const { api, alice, bob } = server;
    const answer = await api(bob.adminKey, "PATCH", `/v1/admin/chatbots/${alice.botId}`, { widget: { enabled: true } });
    expect({ status: answer.status, body: answer.json }).toEqual({ status: 404, body: { detail: "Chatbot not found." } });
    expect(JSON.parse(widgetRow(alice.botId).widget)).toMatchObject({ enabled: false });
  });
});

describe("the widget's identity secret", () => {
  it("answers 201 with a secret derived from the master key and a stored nonce, never the secret stored; a new one replaces it", async () => {
    const { api, alice, runtime, context } = server;
    const id = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Signed", provider: "openai", model: "gpt-test" })).json.id as string;
    const made = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${id}/widget-secret`);
    expect(made.status).toBe(201);
    expect(Object.keys(made.json)).toEqual(["secret"]);
    const secret = made.json.secret as string;
    expect(viewValidators.WidgetSecret(made.json)).toBe(true);
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`)).json.widget.has_secret).toBe(true);

    // Stored: a nonce only. The secret is HMAC(master key, chatbot id and nonce): the key file
    // beside the database (made by this first secret) and the nonce give it back, nothing else does.
    const row = widgetRow(id);
    expect(row.widget_secret_nonce).toMatch(/^[0-9a-f]{32}$/);
    const stored = JSON.stringify(runtime.database.prepare("SELECT * FROM chatbots WHERE id = ?").get(id));
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice(5));
    const masterKey = Buffer.from(readFileSync(`${context.env.PARLEY_DB}.key`, "utf8").trim(), "utf8");
    expect(createDerivedWidgetSecrets(masterKey).secretFor(id, row.widget_secret_nonce!)).toBe(secret);

    // The helper the public routes use: the current secret, and a visitor's hash checked against it.
    const chatbot = { id, widgetSecretNonce: widgetRow(id).widget_secret_nonce };
    expect(runtime.parley.widgetSecret(chatbot)).toBe(secret);
    const hash = widgetUserHash(secret, "user-42");
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(runtime.parley.verifyVisitorIdentity(chatbot, "user-42", hash)).toBe(true);
    expect(runtime.parley.verifyVisitorIdentity(chatbot, "user-43", hash)).toBe(false);
    expect(runtime.parley.verifyVisitorIdentity(chatbot, "user-42", hash.toUpperCase())).toBe(false);

    const rotated = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${id}/widget-secret`);
    expect(rotated.status).toBe(201);
    expect(rotated.json.secret).not.toBe(secret);
    const after = { id, widgetSecretNonce: widgetRow(id).widget_secret_nonce };
    expect(runtime.parley.verifyVisitorIdentity(after, "user-42", hash)).toBe(false);
    expect(runtime.parley.verifyVisitorIdentity(after, "user-42", widgetUserHash(rotated.json.secret as string, "user-42"))).toBe(true);
    // The secret never reaches the log.
    expect(JSON.stringify(server.logs)).not.toContain(rotated.json.secret as string);
  });

  it("has no secret, and verifies no one, until the owner makes one", async () => {
    const { runtime, alice } = server;
    const chatbot = { id: alice.botId, widgetSecretNonce: widgetRow(alice.botId).widget_secret_nonce };
    expect(runtime.parley.widgetSecret(chatbot)).toBeNull();
    expect(runtime.parley.verifyVisitorIdentity(chatbot, "user-42", "0".repeat(64))).toBe(false);
  });

  it("is 404 for an unknown or another owner's chatbot, and 401 without a key", async () => {
    const { api, alice, bob } = server;
    for (const [key, path] of [
      [bob.adminKey, `/v1/admin/chatbots/${alice.botId}/widget-secret`],
      [alice.adminKey, `/v1/admin/chatbots/${UNKNOWN_ID}/widget-secret`],
      [alice.adminKey, "/v1/admin/chatbots/not-a-uuid/widget-secret"],
    ] as const) {
      const answer = await api(key, "POST", path);
      expect({ path, status: answer.status, body: answer.json }).toEqual({ path, status: 404, body: { detail: "Chatbot not found." } });
    }
    expect(widgetRow(alice.botId).widget_secret_nonce).toBeNull();
    expect((await api(undefined, "POST", `/v1/admin/chatbots/${alice.botId}/widget-secret`)).status).toBe(401);
  });
});

describe("feedback on model replies in the operator API", () => {
  it("shows a reply's rating on the message, counts it in the usage, and streams message.rated", async () => {
    const { api, alice, bob, runtime, url } = server;
    const stream = await openEventStream(url, alice.adminKey);
    expect(stream.status).toBe(200);
    await server.chat(alice, "visitor-rate", "When does it ship?");
    const conversationId = (runtime.database.prepare("SELECT id FROM conversations WHERE session_id = ?").get("visitor-rate") as { id: string }).id;
    const before = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`);
    expect(before.json.messages.map((message: { feedback: unknown }) => message.feedback)).toEqual([null, null]);
    expect(viewValidators.ConversationWithMessages(before.json), JSON.stringify(viewValidators.ConversationWithMessages.errors)).toBe(true);
    const replyId = before.json.messages[1].id as string;

    const rated = await runtime.parley.rateReply(alice.botId, "visitor-rate", replyId, { rating: "down", comment: "Not what I asked." });
    const after = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`);
    expect(after.json.messages[1].feedback).toEqual({ rating: "down", comment: "Not what I asked.", created_at: expect.stringMatching(TIME) });
    expect(after.json.messages[1].feedback).toEqual(rated);
    expect(viewValidators.ConversationWithMessages(after.json), JSON.stringify(viewValidators.ConversationWithMessages.errors)).toBe(true);
    const session = await api(alice.chatKey, "GET", `/v1/chatbots/${alice.botId}/sessions/visitor-rate/messages`);
    expect(session.json.data[1].feedback).toEqual(rated);

    const usage = await api(alice.adminKey, "GET", "/v1/admin/usage");
    expect(usage.json.feedback_by_chatbot).toEqual([{ chatbot_id: alice.botId, up: 0, down: 1 }]);
    expect(viewValidators.Usage(usage.json), JSON.stringify(viewValidators.Usage.errors)).toBe(true);
    await runtime.parley.rateReply(alice.botId, "visitor-rate", replyId, { rating: "up" });
    expect((await api(alice.adminKey, "GET", "/v1/admin/usage")).json.feedback_by_chatbot).toEqual([{ chatbot_id: alice.botId, up: 1, down: 0 }]);
    expect((await api(bob.adminKey, "GET", "/v1/admin/usage")).json.feedback_by_chatbot).toEqual([]);

    await expect.poll(() => stream.events.filter((event) => event.event === "message.rated").length, { timeout: 10_000, interval: 10 }).toBe(2);
    const bodies = stream.events.filter((event) => event.event === "message.rated").map((event) => JSON.parse(event.data) as { type: string; data: Record<string, unknown> });
    expect(bodies.map((body) => [body.type, body.data.rating, body.data.comment])).toEqual([
      ["message.rated", "down", "Not what I asked."],
      ["message.rated", "up", null],
    ]);
    expect(bodies[0]!.data).toMatchObject({ message_id: replyId, conversation_id: conversationId, chatbot_id: alice.botId, session_id: "visitor-rate", at: rated.created_at });
    for (const body of bodies) expect(viewValidators.EventBody(body), JSON.stringify(viewValidators.EventBody.errors)).toBe(true);
    stream.drop();
  });
});
