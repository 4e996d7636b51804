import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openRuntime } from "../src/runtime/open-runtime.js";
import type { ParleyRuntime } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { call, environment } from "./harness.js";
import { openStream } from "./sse-client.js";
import { startTestPostgres, testDatabaseUrl, type TestPostgres } from "./test-postgres-url.js";

// The widget's routes on PostgreSQL with two server processes' worth of runtimes (their own
// pools): a token made by one is good on the other, the owner's quota holds exactly across both
// under concurrent visitors, and a session's events stream on one carries an agent's reply made
// through the other.

if (testDatabaseUrl === undefined) console.warn("skipped: the widget on PostgreSQL: PARLEY_TEST_DATABASE_URL is not set.");
describe.skipIf(testDatabaseUrl === undefined)("the widget's routes on PostgreSQL, two processes (needs PARLEY_TEST_DATABASE_URL)", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let database: TestPostgres;
  const runtimes: ParleyRuntime[] = [];
  const servers: RunningServer[] = [];

  beforeAll(async () => {
    context = await environment({ PARLEY_SECRET_KEY: "a-master-key-for-the-widget-postgres-test", PARLEY_WIDGET_MESSAGES_PER_MINUTE: "1000", PARLEY_WIDGET_SESSIONS_PER_HOUR: "1000" });
    database = await startTestPostgres();
    const config = loadConfig({ ...context.env, PARLEY_DATABASE_URL: database.url });
    for (let index = 0; index < 2; index += 1) {
      const runtime = await openRuntime(config);
      runtimes.push(runtime);
      servers.push(await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} }));
    }
  }, 60_000);

  afterAll(async () => {
    for (const server of servers) await server.stop();
    await database?.stop();
    await context?.cleanup();
  });

  it("holds the owner's quota exactly across both servers under concurrent visitors; a token of one works on the other; a rating shows through both", async () => {
    const { admin } = runtimes[0]!.parley;
    await admin.setPlan("pg-tiny", 6);
    const user = await admin.createUser({ email: "widget-pg@example.com", plan: "pg-tiny" });
    const chatbot = await admin.createChatbot({ userId: user.id, name: "PG widget", provider: "openai", model: "gpt-test" });
    await admin.changeChatbot(chatbot.id, { widget: { enabled: true } });
    const [one, two] = servers.map((server) => server.url) as [string, string];
    const sessions = await Promise.all(Array.from({ length: 14 }, (_, index) => call(`${index % 2 === 0 ? one : two}/v1/widget/${chatbot.id}/sessions`, { body: {} })));
    const answers = await Promise.all(
      sessions.map((session, index) =>
        // Each token is used on the server that did not make it.
        call(`${index % 2 === 0 ? two : one}/v1/widget/${chatbot.id}/messages`, { key: (session.json as { token: string }).token, body: { message: `Question ${index}` } }),
      ),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(6);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(8);
    for (const answer of refused) expect((answer.json as { detail: string }).detail).toMatch(/^Monthly message limit reached: the pg-tiny plan allows 6 messages per month\./);
    // A reply is rated through either server, and the rating shows through the other.
    const index = answers.findIndex((answer) => answer.status === 200);
    const token = (sessions[index]!.json as { token: string }).token;
    const reply = (answers[index]!.json as { reply: { id: string } }).reply;
    expect((await call(`${one}/v1/widget/${chatbot.id}/messages/${reply.id}/feedback`, { key: token, body: { rating: "down", comment: "Too short." } })).status).toBe(204);
    const listed = (await call(`${two}/v1/widget/${chatbot.id}/messages`, { key: token })).json as { data: { id: string; feedback: unknown }[] };
    expect(listed.data.find((message) => message.id === reply.id)!.feedback).toMatchObject({ rating: "down", comment: "Too short." });
  });

  it("streams a session's events on one server while an agent replies through the other", async () => {
    const { admin } = runtimes[0]!.parley;
    const user = await admin.createUser({ email: "widget-pg-events@example.com" });
    const { key: adminKey } = await admin.createApiKey({ userId: user.id, name: "Dana", scope: "admin" });
    const chatbot = await admin.createChatbot({ userId: user.id, name: "PG events", provider: "openai", model: "gpt-test" });
    await admin.changeChatbot(chatbot.id, { widget: { enabled: true } });
    const [one, two] = servers.map((server) => server.url) as [string, string];
    const session = (await call(`${one}/v1/widget/${chatbot.id}/sessions`, { body: {} })).json as { session_id: string; token: string };
    expect((await call(`${one}/v1/widget/${chatbot.id}/messages`, { key: session.token, body: { message: "A human, please." } })).status).toBe(200);
    const stream = await openStream(`${two}/v1/widget/${chatbot.id}/events`, { token: session.token });
    expect(stream.status).toBe(200);
    const conversations = (await call(`${one}/v1/admin/conversations`, { key: adminKey })).json as { data: { id: string }[] };
    expect((await call(`${one}/v1/admin/conversations/${conversations.data[0]!.id}/messages`, { key: adminKey, body: { content: "Dana here." } })).status).toBe(201);
    const sent = await stream.next((event) => event.event === "message.sent");
    expect(JSON.parse(sent.data)).toMatchObject({ data: { session_id: session.session_id, author: "agent", agent_name: "Dana", content: "Dana here." } });
    stream.drop();
  });
});
