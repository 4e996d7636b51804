import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { streamWith } from "@parley/providers/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, environment, serveCli } from "./harness.js";
import { openStream } from "./sse-client.js";
import { runCliHere, startReceiver } from "./webhook-test-support.js";

// A visitor's story end to end (issue 22, docs/design.md §14) on a real `parley serve` child
// process, set up the way an owner would: the CLI turns the widget on, lists the website and
// adds a webhook. The visitor's side is only HTTP, as a browser on that website would send it.

const SITE = "https://shop.example.com";

let context: Awaited<ReturnType<typeof environment>>;
beforeAll(async () => {
  context = await environment({ PARLEY_SECRET_KEY: "story-master-key-0123456789abcdef", PARLEY_WIDGET_SESSIONS_PER_HOUR: "3", PARLEY_ALLOW_PRIVATE_URLS: "true" });
});
afterAll(async () => {
  await context?.cleanup();
});

describe("a visitor on the owner's website", () => {
  it("streams an answer with its source, rates it (seen by the owner and as a webhook), gets an agent's reply live, and is refused off the site", async () => {
    const cli = async (...args: string[]) => {
      const result = await runCliHere(args, context.env);
      if (result.code !== 0) throw new Error(`parley ${args.join(" ")}: ${result.stderr}`);
      return result.json!;
    };
    const user = await cli("user", "create", "--email", "owner@shop.example.com");
    const { key: adminKey } = await cli("key", "create", "--user", user.id as string, "--scope", "admin", "--name", "Dana");
    const bot = await cli("bot", "create", "--user", user.id as string, "--name", "Kettle Help", "--provider", "openai", "--model", "gpt-test");
    const botId = bot.id as string;
    writeFileSync(join(context.folder, "warranty.md"), "# Warranty\n\nEvery kettle has a 2-year limited warranty.\n");
    await cli("ingest", "--bot", botId, join(context.folder, "warranty.md"));
    await cli("widget", "set", botId, "--origin", SITE);
    await cli("widget", "on", botId);
    const receiver = await startReceiver();
    const { secret } = await cli("webhook", "add", "--user", user.id as string, "--url", receiver.url);

    const server = await serveCli(context.env);
    try {
      const { url } = server;
      const fromSite = { origin: SITE };
      const widget = (path: string) => `${url}/v1/widget/${botId}${path}`;

      // A session from the listed website, answered with CORS for it.
      const session = await call(widget("/sessions"), { body: {}, headers: fromSite });
      expect(session.status).toBe(201);
      expect(session.headers.get("access-control-allow-origin")).toBe(SITE);
      const { token, session_id: sessionId } = session.json as { token: string; session_id: string };
      expect(sessionId).toMatch(/^visitor-[A-Za-z0-9_-]{22}$/);

      // The answer streams event by event: the model is held after its first words, and they
      // have already reached the visitor.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      context.openai.chat.enqueue(streamWith(["Two", " years,", held, " limited."]));
      const stream = await openStream(widget("/messages"), { token, body: { message: "How long is the warranty?" }, headers: fromSite });
      expect(stream.status).toBe(200);
      expect(stream.headers["content-type"]).toMatch(/^text\/event-stream/);
      await stream.next((event) => event.event === "delta" && JSON.parse(event.data).text === " years,");
      expect(stream.events.some((event) => event.event === "reply")).toBe(false);
      release();
      const replyEvent = await stream.next((event) => event.event === "reply");
      await stream.ended;
      expect(stream.events.map((event) => event.event)).toEqual(["message", "delta", "delta", "delta", "reply"]);
      const reply = JSON.parse(replyEvent.data) as { id: string; content: string; sources: unknown[] };
      expect(reply).toMatchObject({ content: "Two years, limited.", sources: [{ title: "Warranty", source: expect.stringMatching(/warranty\.md$/), page: null }] });

      // The history after it: the visitor's message and the stored reply, oldest first.
      const history = await call(widget("/messages"), { headers: { ...fromSite, authorization: `Bearer ${token}` } });
      expect((history.json as { data: Array<{ author: string; content: string }> }).data.map((message) => [message.author, message.content])).toEqual([
        ["user", "How long is the warranty?"],
        ["model", "Two years, limited."],
      ]);

      // A rating, seen by the owner in the operator API and as a signed webhook.
      const rated = await call(widget(`/messages/${reply.id}/feedback`), { body: { rating: "up", comment: "Clear." }, headers: { ...fromSite, authorization: `Bearer ${token}` } });
      expect(rated.status).toBe(204);
      const conversations = await call(`${url}/v1/admin/conversations`, { key: adminKey as string });
      const conversationId = (conversations.json as { data: Array<{ id: string; session_id: string }> }).data.find((row) => row.session_id === sessionId)!.id;
      const shown = await call(`${url}/v1/admin/conversations/${conversationId}`, { key: adminKey as string });
      expect((shown.json as { messages: Array<{ id: string; feedback: unknown }> }).messages.find((message) => message.id === reply.id)!.feedback).toMatchObject({ rating: "up", comment: "Clear." });
      const verifier = new Webhook(secret as string);
      const webhookTypes = () => receiver.requests.map((request) => (verifier.verify(request.body, request.headers) as { type: string }).type);
      await expect.poll(webhookTypes, { timeout: 10_000, interval: 20 }).toContain("message.rated");
      const ratedHook = receiver.requests.map((request) => verifier.verify(request.body, request.headers) as { type: string; data: Record<string, unknown> }).find((body) => body.type === "message.rated")!;
      expect(ratedHook.data).toMatchObject({ message_id: reply.id, chatbot_id: botId, session_id: sessionId, rating: "up", comment: "Clear." });

      // An agent takes the conversation over in the operator API; the reply reaches the
      // visitor's open event stream, with the agent's name.
      const events = await openStream(widget("/events"), { token, headers: fromSite });
      expect(events.status).toBe(200);
      expect((await call(`${url}/v1/admin/conversations/${conversationId}/takeover`, { method: "POST", key: adminKey as string })).status).toBe(200);
      await events.next((event) => event.event === "conversation.takeover_started");
      expect((await call(`${url}/v1/admin/conversations/${conversationId}/messages`, { key: adminKey as string, body: { content: "Hi, Dana here: yes, two years." } })).status).toBe(201);
      const agentReply = await events.next((event) => event.event === "message.sent");
      expect(JSON.parse(agentReply.data)).toMatchObject({ data: { session_id: sessionId, author: "agent", agent_name: "Dana", content: "Hi, Dana here: yes, two years." } });
      // While the agent has it, the visitor's next message is stored and not answered.
      const waiting = await call(widget("/messages"), { body: { message: "Thanks!" }, headers: { ...fromSite, authorization: `Bearer ${token}` } });
      expect(waiting).toMatchObject({ status: 202, json: { reply: null } });
      events.drop();

      // A website the owner did not list, and a token altered in one character, are refused.
      expect(await call(widget("/sessions"), { body: {}, headers: { origin: "https://evil.example.net" } })).toMatchObject({ status: 403, json: { detail: "This website may not use this chatbot." } });
      const altered = token.slice(0, -1) + (token.endsWith("A") ? "B" : "A");
      expect(await call(widget("/messages"), { headers: { ...fromSite, authorization: `Bearer ${altered}` } })).toMatchObject({
        status: 401,
        json: { detail: "The visitor session is missing, invalid or expired." },
      });

      // The address's session limit (3 an hour here): two more, then 429 with Retry-After.
      for (let made = 1; made < 3; made++) expect((await call(widget("/sessions"), { body: {}, headers: fromSite })).status).toBe(201);
      const refused = await call(widget("/sessions"), { body: {}, headers: fromSite });
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((refused.json as { detail: string }).detail).toMatch(/session/i);
    } finally {
      server.stop();
      await receiver.close();
    }
    expect(await server.exited).toBe(0);
  }, 120_000);
});
