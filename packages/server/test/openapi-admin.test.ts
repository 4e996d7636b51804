import { existsSync, statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, serve } from "./harness.js";
import { document, expectDocumented, resolve, viewValidators as adminResponseValidators } from "./openapi-support.js";

const validateEventBody = adminResponseValidators.EventBody;

// Real answers of a running server to every operator route (and the session messages route)
// against docs/openapi.json: each success against its view's schema, each refusal's text
// among the documented ones.

const CHATBOTS = "/v1/admin/chatbots";
const CHATBOT = "/v1/admin/chatbots/{chatbot_id}";
const WIDGET_SECRET = "/v1/admin/chatbots/{chatbot_id}/widget-secret";
const DOCUMENTS = "/v1/admin/chatbots/{chatbot_id}/documents";
const DOCUMENT = "/v1/admin/chatbots/{chatbot_id}/documents/{document_id}";
const INGESTION = "/v1/admin/ingestions/{ingestion_id}";
const SEARCH = "/v1/admin/chatbots/{chatbot_id}/search";
const CONVERSATIONS = "/v1/admin/conversations";
const CONVERSATION = "/v1/admin/conversations/{conversation_id}";
const TAKEOVER = "/v1/admin/conversations/{conversation_id}/takeover";
const REPLY = "/v1/admin/conversations/{conversation_id}/messages";
const READ = "/v1/admin/conversations/{conversation_id}/read";
const SESSION = "/v1/chatbots/{chatbot_id}/sessions/{session_id}/messages";
const KEYS = "/v1/admin/keys";
const KEY = "/v1/admin/keys/{key_id}";
const WEBHOOKS = "/v1/admin/webhooks";
const WEBHOOK = "/v1/admin/webhooks/{webhook_id}";
const DELIVERIES = "/v1/admin/webhook-deliveries";
const RETRY = "/v1/admin/webhook-deliveries/{delivery_id}/retry";
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

type Answer = Awaited<ReturnType<typeof call>>;
type Json = Record<string, unknown> & { id: string };

describe("operator API responses of a running server match the document", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let server: Awaited<ReturnType<typeof serve>>;
  let userId: string;
  let chatKey: string;
  /** Every documented operation answered with a success here. */
  const succeeded = new Set<string>();

  beforeAll(async () => {
    // A small admin limit, so its 429 takes a few requests; every other call has a fresh key.
    context = await environment({ PARLEY_ADMIN_KEY_RATE_LIMIT: "4", PARLEY_ALLOW_PRIVATE_URLS: "true" });
    server = await serve(context.env);
    // `parley serve` runs the ingestion runner and the webhook dispatcher beside the server; so does this test.
    server.runtime.ingestions.start();
    server.runtime.dispatcher.start();
    userId = (await server.runtime.parley.admin.createUser({ email: "operator@example.com" })).id;
    chatKey = (await server.runtime.parley.admin.createApiKey({ userId })).key;
  }, 60_000);

  afterAll(async () => {
    await server?.running.stop();
    await context?.cleanup();
  });

  const adminKey = async () => (await server.runtime.parley.admin.createApiKey({ userId, scope: "admin" })).key;

  /** Calls `template` (filled with `ids`) with a fresh admin key, checks the answer against the document and the status. */
  async function check(method: string, template: string, status: number, options: { ids?: string[]; query?: string; body?: unknown; key?: string; raw?: string; contentType?: string } = {}) {
    let index = 0;
    const path = template.replace(/\{\w+\}/g, () => encodeURIComponent(options.ids![index++]!));
    const answer = await call(`${server.url}${path}${options.query ?? ""}`, { method, key: options.key ?? (await adminKey()), body: options.body, raw: options.raw, contentType: options.contentType });
    expect(answer.status, `${method} ${path}${options.query ?? ""}: ${answer.text}`).toBe(status);
    expectDocumented(template, method.toLowerCase(), answer);
    if (status < 300) succeeded.add(`${method} ${template}`);
    return answer;
  }
  const view = (name: keyof typeof adminResponseValidators, answer: Answer) => {
    expect(adminResponseValidators[name](answer.json), `${name}: ${JSON.stringify(adminResponseValidators[name].errors)}`).toBe(true);
    return answer.json as Json;
  };

  it("chatbots, knowledge, the retrieval test: every success and its refusals", async () => {
    const bot = view("AdminChatbot", await check("POST", CHATBOTS, 201, { body: { name: "Kettle Help", provider: "openai", model: "gpt-test" } }));
    await check("POST", CHATBOTS, 201, { body: { name: "Second", provider: "ollama", model: "llama3.2" } });
    const first = view("AdminChatbotPage", await check("GET", CHATBOTS, 200, { query: "?limit=1" }));
    expect(first.next_cursor).toEqual(expect.any(String));
    view("AdminChatbotPage", await check("GET", CHATBOTS, 200, { query: `?limit=1&cursor=${String(first.next_cursor)}` }));
    view("AdminChatbot", await check("GET", CHATBOT, 200, { ids: [bot.id] }));
    view("AdminChatbot", await check("PATCH", CHATBOT, 200, { ids: [bot.id], body: { system_prompt: "You help kettle owners." } }));
    const ingestion = view("Ingestion", await check("POST", DOCUMENTS, 202, { ids: [bot.id], body: { title: "Warranty", text: "Every kettle has a 2-year limited warranty." } }));
    let done = ingestion;
    while (done.status === "queued" || done.status === "running") {
      await new Promise((resolve) => setTimeout(resolve, 20));
      done = view("Ingestion", await check("GET", INGESTION, 200, { ids: [ingestion.id] }));
    }
    expect(done.status).toBe("succeeded");
    const documents = view("DocumentPage", await check("GET", DOCUMENTS, 200, { ids: [bot.id] }));
    view("SearchResult", await check("POST", SEARCH, 200, { ids: [bot.id], body: { query: "How long is the warranty?" } }));
    await check("DELETE", DOCUMENT, 204, { ids: [bot.id, (documents.data as Json[])[0]!.id] });

    for (const [method, template, ids] of [
      ["GET", CHATBOT, ["not-a-uuid"]],
      ["GET", DOCUMENTS, [UNKNOWN]],
      ["DELETE", DOCUMENT, [bot.id, UNKNOWN]],
      ["GET", INGESTION, [UNKNOWN]],
    ] as const) {
      await check(method, template, 404, { ids: [...ids] });
    }
    await check("GET", CHATBOTS, 422, { query: "?limit=0" });
    await check("GET", CHATBOTS, 422, { query: "?cursor=bm9wZQ" });
    await check("POST", CHATBOTS, 422, { body: { name: "  ", provider: "openai", model: "m" } });
    await check("POST", CHATBOTS, 422, { body: { name: "x", provider: "cohere", model: "m" } });
    await check("PATCH", CHATBOT, 422, { ids: [bot.id], body: {} });
    await check("PATCH", CHATBOT, 422, { ids: [bot.id], body: { widget: { allowed_origins: ["https://example.com/path"] } } });
    await check("PATCH", CHATBOT, 422, { ids: [bot.id], body: { widget: { accent_color: "blue" } } });
    await check("POST", WIDGET_SECRET, 404, { ids: [UNKNOWN] });
    await check("POST", DOCUMENTS, 422, { ids: [bot.id], body: { url: "https://example.com/faq", crawl: "deep" } });
    await check("POST", DOCUMENTS, 422, { ids: [bot.id], body: { title: "x" } });
    await check("POST", SEARCH, 422, { ids: [bot.id], body: { query: " " } });
    await check("POST", CHATBOTS, 400, { raw: "{nope" });
    await check("POST", CHATBOTS, 415, { raw: "name=x", contentType: "text/plain" });
    await check("POST", CHATBOTS, 413, { body: { name: "x".repeat(1024 * 1024) } });
    await check("DELETE", CHATBOT, 204, { ids: [bot.id] });
    await check("GET", CHATBOT, 404, { ids: [bot.id] });
  }, 30_000);

  it("conversations, takeover, an agent's reply, the session messages route, webhooks and deliveries", async () => {
    // The first subscription over the API creates the master key file, as `parley webhook add` does.
    expect(existsSync(`${context.env.PARLEY_DB}.key`)).toBe(false);
    const webhook = view("WebhookWithSecret", await check("POST", WEBHOOKS, 201, { body: { url: "http://127.0.0.1:9/parley", events: ["message.sent"] } }));
    expect(statSync(`${context.env.PARLEY_DB}.key`).mode & 0o777).toBe(0o600);
    view("WebhookPage", await check("GET", WEBHOOKS, 200));
    const bot = view("AdminChatbot", await check("POST", CHATBOTS, 201, { body: { name: "Inbox", provider: "openai", model: "gpt-test" } }));
    view("WidgetSecret", await check("POST", WIDGET_SECRET, 201, { ids: [bot.id] }));
    expect((await call(`${server.url}/v1/chatbots/${bot.id}/chat`, { key: chatKey, body: { message: "Hello?", session_id: "visitor 7" } })).status).toBe(200);
    const page = view("ConversationPage", await check("GET", CONVERSATIONS, 200, { query: `?chatbot_id=${bot.id}&status=bot` }));
    const conversation = (page.data as Json[])[0]!;
    const whole = view("ConversationWithMessages", await check("GET", CONVERSATION, 200, { ids: [conversation.id] }));
    const firstMessage = (whole.messages as Json[])[0]!;
    view("ConversationWithMessages", await check("GET", CONVERSATION, 200, { ids: [conversation.id], query: `?after=${firstMessage.id}` }));
    view("Conversation", await check("POST", TAKEOVER, 200, { ids: [conversation.id] }));
    view("Message", await check("POST", REPLY, 201, { ids: [conversation.id], body: { content: "Hi, Sam here." } }));
    view("Conversation", await check("DELETE", TAKEOVER, 200, { ids: [conversation.id] }));
    await check("POST", READ, 204, { ids: [conversation.id], body: { up_to: firstMessage.id } });
    await check("POST", READ, 422, { ids: [conversation.id], body: { up_to: UNKNOWN } });
    await check("POST", READ, 404, { ids: [UNKNOWN], body: { up_to: firstMessage.id } });
    const session = view("SessionMessages", await check("GET", SESSION, 200, { ids: [bot.id, "visitor 7"], key: chatKey }));
    expect((session.data as Json[]).map((message) => message.author)).toEqual(["user", "model", "agent"]);
    view("SessionMessages", await check("GET", SESSION, 200, { ids: [bot.id, "visitor 7"], key: chatKey, query: `?after=${firstMessage.id}` }));

    // The dispatcher makes the deliveries from the outbox (and fails to reach port 9: pending, to retry).
    let deliveries = view("DeliveryPage", await check("GET", DELIVERIES, 200, { query: "?status=pending" }));
    while ((deliveries.data as Json[]).length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      deliveries = view("DeliveryPage", await check("GET", DELIVERIES, 200, { query: "?status=pending" }));
    }
    view("Delivery", await check("POST", RETRY, 200, { ids: [(deliveries.data as Json[])[0]!.id] }));
    await check("DELETE", WEBHOOK, 204, { ids: [webhook.id] });

    for (const [method, template, ids] of [
      ["GET", CONVERSATION, [UNKNOWN]],
      ["POST", TAKEOVER, ["x"]],
      ["DELETE", TAKEOVER, [UNKNOWN]],
      ["DELETE", WEBHOOK, [webhook.id]],
      ["POST", RETRY, [UNKNOWN]],
    ] as const) {
      await check(method, template, 404, { ids: [...ids] });
    }
    await check("POST", REPLY, 404, { ids: [UNKNOWN], body: { content: "hello" } });
    await check("GET", CONVERSATIONS, 404, { query: `?chatbot_id=${UNKNOWN}` });
    await check("GET", SESSION, 404, { ids: [bot.id, "nobody"], key: chatKey });
    await check("GET", SESSION, 404, { ids: [UNKNOWN, "visitor 7"], key: chatKey });
    await check("GET", CONVERSATIONS, 422, { query: "?status=open" });
    await check("GET", CONVERSATION, 422, { ids: [conversation.id], query: `?after=${UNKNOWN}` });
    await check("GET", SESSION, 422, { ids: [bot.id, "visitor 7"], key: chatKey, query: "?after=nope" });
    await check("POST", REPLY, 422, { ids: [conversation.id], body: { content: "   " } });
    await check("GET", DELIVERIES, 422, { query: "?status=lost" });
    await check("POST", WEBHOOKS, 422, { body: { url: "ftp://example.com" } });
    await check("POST", WEBHOOKS, 422, { body: { url: "https://example.com", events: ["message.deleted"] } });
    await check("POST", WEBHOOKS, 404, { body: { url: "https://example.com", chatbot_id: UNKNOWN } });
  }, 30_000);

  it("keys and usage; 401, 403 and the admin key's own 429", async () => {
    const created = view("KeyWithSecret", await check("POST", KEYS, 201, { body: { name: "widget", scope: "chat" } }));
    view("KeyPage", await check("GET", KEYS, 200));
    await check("DELETE", KEY, 204, { ids: [created.id] });
    await check("DELETE", KEY, 404, { ids: [UNKNOWN] });
    await check("POST", KEYS, 422, { body: { scope: "owner" } });
    view("Usage", await check("GET", "/v1/admin/usage", 200));

    await check("GET", KEYS, 401, { key: `prl_${"0".repeat(43)}` });
    // The scope is checked before the body: a chat key gets 403 whatever it sent.
    await check("POST", CHATBOTS, 403, { key: chatKey, raw: "{nope" });
    await check("GET", "/v1/admin/usage", 403, { key: chatKey });
    const key = await adminKey();
    for (const _ of [1, 2, 3, 4]) expect((await call(`${server.url}/v1/admin/usage`, { key })).status).toBe(200);
    const limited = await check("GET", "/v1/admin/usage", 429, { key });
    expect(limited.headers.get("ratelimit-limit")).toBe("4");
  });

  it("the live events: a text/event-stream of documented events with the documented headers", async () => {
    const bot = (await server.runtime.parley.admin.createChatbot({ userId, name: "Live", provider: "openai", model: "gpt-test" })).id;
    const abort = new AbortController();
    const response = await fetch(`${server.url}/v1/admin/events`, { headers: { authorization: `Bearer ${await adminKey()}` }, signal: abort.signal });
    expect(response.status).toBe(200);
    succeeded.add("GET /v1/admin/events");
    const documented = resolve(document.paths["/v1/admin/events"]!.get!.responses["200"]) as { headers: Record<string, unknown>; content: Record<string, unknown> };
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(Object.keys(documented.content)).toEqual(["text/event-stream"]);
    for (const name of Object.keys(documented.headers)) expect(response.headers.get(name), `the stream sends ${name}`).not.toBeNull();
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = (await reader.read()).value!;
    expect(text).toBe(": connected\n\n");
    await server.runtime.parley.admin.startTakeover(bot, "live-session");
    while (!text.includes("event: conversation.takeover_started")) text += (await reader.read()).value!;
    abort.abort();
    // A new conversation, then its takeover: two events in the documented format.
    const events = [...text.matchAll(/id: (\S+)\nevent: (\S+)\ndata: (.+)\n\n/g)];
    expect(events.map((event) => event[2])).toEqual(["conversation.started", "conversation.takeover_started"]);
    for (const [, id, type, data] of events) {
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(validateEventBody(JSON.parse(data!)), JSON.stringify(validateEventBody.errors)).toBe(true);
      expect((JSON.parse(data!) as { type: string }).type).toBe(type);
    }
    await check("GET", "/v1/admin/events", 403, { key: chatKey });
  });

  it("called every operator route and the session messages route with success above", () => {
    const operations = Object.entries(document.paths)
      .filter(([path]) => path.startsWith("/v1/admin/") || path.includes("/sessions/"))
      .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(operations.length).toBe(28);
    expect([...succeeded].sort()).toEqual(operations.sort());
  });
});
