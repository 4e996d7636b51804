import { failWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument, renderOpenApiDocument } from "../src/http/openapi.js";
import { ENDPOINTS } from "../src/http/endpoints/index.js";
import { ajv, committedText, document, expectDocumented, resolve, responseValidators, type ResolvedResponse } from "./openapi-support.js";
import { call, environment, serve } from "./harness.js";

describe("docs/openapi.json", () => {
  it("is exactly what buildOpenApiDocument() generates from the server's schemas", () => {
    const hint = "docs/openapi.json is out of date with packages/server/src/http: run `npm run openapi` and commit the result";
    expect(JSON.parse(committedText), hint).toEqual(buildOpenApiDocument());
    expect(committedText === renderOpenApiDocument(), `${hint} (formatting differs)`).toBe(true);
  });

  it("holds examples that are valid against their own schemas", () => {
    let checked = 0;
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, raw] of Object.entries(operation.responses)) {
          const media = (resolve(raw) as ResolvedResponse).content?.["application/json"] as { schema?: object; example?: unknown; examples?: Record<string, { value: unknown }> } | undefined;
          if (media?.schema === undefined) continue;
          const examples = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((example) => example.value)];
          const validate = ajv.compile(resolve(media.schema) as object);
          for (const example of examples) {
            checked += 1;
            expect(validate(example) ? [] : validate.errors, `${method.toUpperCase()} ${path} ${status} example`).toEqual([]);
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it("is structurally sound: operation ids, JSON content with a schema, every reference resolvable, the documented statuses", () => {
    const operationIds: string[] = [];
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.operationId, where).toMatch(/^[a-z][A-Za-z]+$/);
        operationIds.push(operation.operationId!);
        const declared = ((resolve(operation.parameters ?? []) as { in: string; name: string }[]) ?? []).filter((parameter) => parameter.in === "path");
        expect(declared.map((parameter) => parameter.name).sort(), `${where} path parameters`).toEqual([...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort());
        for (const [status, raw] of Object.entries(operation.responses)) {
          const response = resolve(raw) as ResolvedResponse;
          expect(status, where).toMatch(/^[1-5]\d\d$/);
          expect(response.headers?.["X-Request-Id"], `${where} ${status} documents X-Request-Id`).toBeDefined();
          // A 204 has no body; the live events answer a stream; everything else is JSON with a schema.
          if (status === "204") {
            expect(response.content, `${where} 204 has no body`).toBeUndefined();
            continue;
          }
          // The live events answer a stream; a widget message answers JSON or, asked for, a stream.
          const streams = ["/v1/admin/events", "/v1/widget/{chatbot_id}/events"].includes(path) && status === "200";
          const either = path === "/v1/widget/{chatbot_id}/messages" && method === "post" && status === "200";
          const mediaType = streams ? "text/event-stream" : "application/json";
          expect(Object.keys(response.content ?? {}), `${where} ${status} media types`).toEqual(either ? ["application/json", "text/event-stream"] : [mediaType]);
          const media = response.content![mediaType]!;
          expect(media.schema, `${where} ${status} has a schema`).toBeDefined();
          expect(() => ajv.compile(media.schema as object), `${where} ${status} schema compiles`).not.toThrow();
        }
      }
    }
    expect(new Set(operationIds).size).toBe(operationIds.length);
    const statuses = (path: string, method: string) => Object.keys(document.paths[path]![method]!.responses).sort();
    expect(statuses("/v1/chatbots/{chatbot_id}/chat", "post")).toEqual(["200", "202", "400", "401", "403", "404", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/chatbots", "get")).toEqual(["200", "401", "429", "500"]);
    expect(statuses("/v1/chatbots/{chatbot_id}", "get")).toEqual(["200", "401", "404", "429", "500"]);
    expect(statuses("/healthz", "get")).toEqual(["200"]);
    expect(statuses("/v1/admin/chatbots", "post")).toEqual(["201", "400", "401", "403", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/admin/chatbots/{chatbot_id}", "delete")).toEqual(["204", "401", "403", "404", "429", "500"]);
    expect(statuses("/v1/admin/chatbots/{chatbot_id}/documents", "post")).toEqual(["202", "400", "401", "403", "404", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/admin/conversations", "get")).toEqual(["200", "401", "403", "404", "422", "429", "500"]);
    expect(statuses("/v1/admin/events", "get")).toEqual(["200", "401", "403", "429"]);
    expect(statuses("/v1/chatbots/{chatbot_id}/sessions/{session_id}/messages", "get")).toEqual(["200", "401", "404", "422", "429", "500"]);
    expect(statuses("/v1/widget/{chatbot_id}", "get")).toEqual(["200", "403", "404", "500"]);
    expect(statuses("/v1/widget/{chatbot_id}/sessions", "post")).toEqual(["201", "400", "403", "404", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/widget/{chatbot_id}/messages", "post")).toEqual(["200", "202", "400", "401", "403", "404", "413", "415", "422", "429", "500"]);
    expect(statuses("/v1/widget/{chatbot_id}/events", "get")).toEqual(["200", "401", "403", "404", "429"]);
    expect(document.components.securitySchemes!.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });
});

describe("docs/openapi.json and the server's routes", () => {
  it("embeds the request body schemas the server validates with", () => {
    for (const { body } of ENDPOINTS.filter((endpoint) => endpoint.body)) {
      const [name, schema] = [body!.name, body!.schema];
      expect(document.components.schemas![name], name).toEqual(JSON.parse(JSON.stringify(schema)));
    }
  });
});

describe("responses of a running server match the document", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let server: Awaited<ReturnType<typeof serve>>;
  let userId: string;
  let botId: string;
  let pausedBotId: string;
  const freshKey = async (forUser = userId) => (await server.runtime.parley.admin.createApiKey({ userId: forUser })).key;

  beforeAll(async () => {
    // Small limits, so each kind of 429 takes a few requests.
    context = await environment({ PARLEY_KEY_RATE_LIMIT: "3", PARLEY_CONVERSATION_RATE_LIMIT: "2" });
    server = await serve(context.env);
    const { admin } = server.runtime.parley;
    await admin.setPlan("pro", 1_000);
    userId = (await admin.createUser({ email: "openapi@example.com", plan: "pro" })).id;
    botId = (await admin.createChatbot({ userId, name: "Kettle Help", provider: "openai", model: "gpt-test" })).id;
    pausedBotId = (await admin.createChatbot({ userId, name: "Paused", provider: "openai", model: "gpt-test" })).id;
    await admin.pauseChatbot(pausedBotId);
    await admin.ingestDocument(botId, { source: "warranty.md", text: "Every kettle has a 2-year limited warranty." });
  }, 60_000);

  afterAll(async () => {
    await server?.running.stop();
    await context?.cleanup();
  });

  const CHAT = "/v1/chatbots/{chatbot_id}/chat";
  const DETAIL = "/v1/chatbots/{chatbot_id}";
  const LIST = "/v1/chatbots";

  it("for the successes: chat 200 and 202, the list, the detail, /healthz", async () => {
    const key = await freshKey();
    const chat = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "How long is the warranty?", session_id: "one" } });
    expectDocumented(CHAT, "post", chat);
    expect(responseValidators.chat(chat.json)).toBe(true);
    await server.runtime.parley.admin.startTakeover(botId, "human");
    const takeover = await call(`${server.url}/v1/chatbots/${botId}/chat`, { key, body: { message: "A person, please.", session_id: "human" } });
    expect(takeover.status).toBe(202);
    expectDocumented(CHAT, "post", takeover);
    const list = await call(`${server.url}/v1/chatbots`, { key });
    expect(list.status).toBe(200);
    expectDocumented(LIST, "get", list);
    expect((list.json as unknown[]).every((item) => responseValidators.summary(item))).toBe(true);
    const detail = await call(`${server.url}/v1/chatbots/${botId}`, { key: await freshKey() });
    expect(detail.status).toBe(200);
    expectDocumented(DETAIL, "get", detail);
    expect(responseValidators.detail(detail.json)).toBe(true);
    expectDocumented("/healthz", "get", await call(`${server.url}/healthz`));
  });

  it("for the refusals of the chat route: 400, 401, 403, 404, 413, 415, 422, 500", async () => {
    const chatUrl = `${server.url}/v1/chatbots/${botId}/chat`;
    const cases: [number, Parameters<typeof call>[1], string?][] = [
      [400, { raw: "{nope" }],
      [401, { key: undefined, body: { message: "hi" } }],
      [403, { body: { message: "hi" } }, `${server.url}/v1/chatbots/${pausedBotId}/chat`],
      [404, { body: { message: "hi" } }, `${server.url}/v1/chatbots/00000000-0000-4000-8000-000000000000/chat`],
      [413, { body: { message: "x".repeat(1024 * 1024) } }],
      [415, { raw: "message=hi", contentType: "text/plain" }],
      [422, { body: { session_id: "s" } }],
      [422, { body: { message: "y".repeat(32_001) } }],
      [422, { body: { message: "hi", session_id: "z".repeat(256) } }],
      [422, { body: "a string" }],
    ];
    for (const [status, options, url] of cases) {
      const response = await call(url ?? chatUrl, { key: status === 401 ? undefined : await freshKey(), ...options });
      expect(response.status, JSON.stringify(options).slice(0, 80)).toBe(status);
      expectDocumented(CHAT, "post", response);
    }
    context.openai.chat.enqueue(failWith(401, { message: "Incorrect API key provided" }));
    const failed = await call(chatUrl, { key: await freshKey(), body: { message: "hello?", session_id: "failing" } });
    expect(failed.status).toBe(500);
    expectDocumented(CHAT, "post", failed);
  });

  it("for all three kinds of 429 on chat, and 401, 404 and 429 on the read routes", async () => {
    const chatUrl = `${server.url}/v1/chatbots/${botId}/chat`;
    // The per-conversation limit (2 a minute here): the third message in one session.
    const key = await freshKey();
    for (const _ of [1, 2]) expect((await call(chatUrl, { key, body: { message: "again", session_id: "busy" } })).status).toBe(200);
    const conversation = await call(chatUrl, { key, body: { message: "again", session_id: "busy" } });
    expect(conversation.status).toBe(429);
    expectDocumented(CHAT, "post", conversation);
    // The per-key limit (3 a minute here): the fourth request of a key.
    const keyLimited = await call(chatUrl, { key, body: { message: "once more", session_id: "elsewhere" } });
    expect(keyLimited.status).toBe(429);
    expectDocumented(CHAT, "post", keyLimited);
    // The monthly quota: a user on the default `free` plan, here limited to one message.
    await server.runtime.parley.admin.setPlan("free", 1);
    const frugal = (await server.runtime.parley.admin.createUser({ email: "frugal@example.com" })).id;
    const frugalBot = (await server.runtime.parley.admin.createChatbot({ userId: frugal, name: "Frugal", provider: "openai", model: "gpt-test" })).id;
    const frugalKey = await freshKey(frugal);
    expect((await call(`${server.url}/v1/chatbots/${frugalBot}/chat`, { key: frugalKey, body: { message: "first" } })).status).toBe(200);
    const quota = await call(`${server.url}/v1/chatbots/${frugalBot}/chat`, { key: frugalKey, body: { message: "second" } });
    expect(quota.status).toBe(429);
    expect((quota.json as { detail: string }).detail).toMatch(/^Monthly message limit reached/);
    expectDocumented(CHAT, "post", quota);

    for (const [path, url] of [
      [LIST, `${server.url}/v1/chatbots`],
      [DETAIL, `${server.url}/v1/chatbots/${botId}`],
    ] as const) {
      expectDocumented(path, "get", await call(url, { key: `prl_${"0".repeat(43)}` }));
      const readKey = await freshKey();
      for (const _ of [1, 2, 3]) await call(url, { key: readKey });
      const limited = await call(url, { key: readKey });
      expect(limited.status).toBe(429);
      expectDocumented(path, "get", limited);
    }
    const missing = await call(`${server.url}/v1/chatbots/not-a-uuid`, { key: await freshKey() });
    expect(missing.status).toBe(404);
    expectDocumented(DETAIL, "get", missing);
  }, 30_000);

  it("answers unknown routes and methods with the texts the document's description states", async () => {
    const description = (document as unknown as { info: { description: string } }).info.description;
    const unknown = await call(`${server.url}/v2/anything`);
    expect(unknown.status).toBe(404);
    expect(description).toContain(`404 \`${(unknown.json as { detail: string }).detail}\``);
    const wrongMethod = await call(`${server.url}/v1/chatbots`, { method: "PUT" });
    expect(wrongMethod.status).toBe(405);
    expect(description).toContain(`405 \`${(wrongMethod.json as { detail: string }).detail}\``);
    expect(responseValidators.error(wrongMethod.json)).toBe(true);
  });
});
