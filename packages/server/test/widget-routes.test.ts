import { createHmac } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createVisitorTokens, VISITOR_TOKEN_TTL_MICROS } from "@parley/core";
import { replyWith, streamWith } from "@parley/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIME, UNKNOWN_ID, UUID } from "./admin-test-support.js";
import { openEventStream, openStream } from "./sse-client.js";
import { SECRET_KEY, startWidgetServer, type WidgetServer } from "./widget-test-support.js";

// The widget's public routes over HTTP against a real server (docs/design.md §14): texts and
// statuses, tokens, the pipeline, streaming, the session's events.

let server: WidgetServer;
beforeAll(async () => {
  server = await startWidgetServer({ PARLEY_WIDGET_MESSAGES_PER_MINUTE: "1000", PARLEY_WIDGET_SESSIONS_PER_HOUR: "1000" });
});
afterAll(async () => {
  await server?.close();
});

const NOT_FOUND = { detail: "Chatbot not found." };
const UNAUTHORIZED = { detail: "The visitor session is missing, invalid or expired." };
const IDENTITY = { detail: "The visitor's identity could not be verified." };

/** Every public route of a chatbot, with a token and a body where it takes them. */
const routes = (botId: string, token?: string) =>
  [
    ["GET", `/v1/widget/${botId}`, undefined],
    ["POST", `/v1/widget/${botId}/sessions`, {}],
    ["POST", `/v1/widget/${botId}/messages`, { message: "hi" }],
    ["GET", `/v1/widget/${botId}/messages`, undefined],
    ["GET", `/v1/widget/${botId}/events`, undefined],
    ["POST", `/v1/widget/${botId}/messages/${UNKNOWN_ID}/feedback`, { rating: "up" }],
  ].map(([method, path, body]) => ({ method: method as string, path: path as string, body, token }));

describe("a chatbot that is not public", () => {
  it("is 404 with the same text on every route: unknown, malformed, widget off, deleted", async () => {
    const { alice, bob, runtime, visit, enableWidget, newSession } = server;
    // A token of a chatbot that was public, then was deleted: still nothing.
    const bot = await runtime.parley.admin.createChatbot({ userId: bob.userId, name: "Soon gone", provider: "openai", model: "gpt-test" });
    await enableWidget(bob, {}, bot.id);
    const { token } = await newSession(bot.id);
    await runtime.parley.admin.deleteChatbot(bot.id);
    for (const botId of [UNKNOWN_ID, "not-a-uuid", alice.botId, bot.id]) {
      for (const route of routes(botId, token)) {
        const answer = await visit(route.method, route.path, { token: route.token, body: route.body });
        expect(answer.status, `${route.method} ${route.path}`).toBe(404);
        expect(answer.json).toEqual(NOT_FOUND);
      }
    }
  });
});

describe("the appearance", () => {
  it("gives the widget's settings, the chatbot's name as the default title, and `available` false while paused", async () => {
    const { alice, visit, enableWidget, runtime } = server;
    await enableWidget(alice);
    const path = `/v1/widget/${alice.botId}`;
    const shown = await visit("GET", path);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("cache-control")).toBe("no-store");
    expect(shown.json).toEqual({ title: "Alice's bot", welcome_message: "", starter_questions: [], accent_color: "#2563eb", position: "right", identity_required: false, available: true });
    await enableWidget(alice, { title: "Ask Alice", welcome_message: "Hello!", starter_questions: ["Warranty?"], accent_color: "#112233", position: "left" });
    expect((await visit("GET", path)).json).toEqual({ title: "Ask Alice", welcome_message: "Hello!", starter_questions: ["Warranty?"], accent_color: "#112233", position: "left", identity_required: false, available: true });
    await runtime.parley.admin.pauseChatbot(alice.botId);
    expect((await visit("GET", path)).json.available).toBe(false);
    await runtime.parley.admin.resumeChatbot(alice.botId);
    expect((await visit("GET", path)).json.available).toBe(true);
    await enableWidget(alice, { title: null, welcome_message: "", starter_questions: [], accent_color: "#2563eb", position: "right" });
  });
});

describe("sessions and tokens", () => {
  it("an anonymous session is visitor- and 22 URL-safe characters, each one new", async () => {
    const { alice, enableWidget, newSession } = server;
    await enableWidget(alice);
    const one = await newSession(alice.botId);
    const two = await newSession(alice.botId);
    expect(one.session_id).toMatch(/^visitor-[A-Za-z0-9_-]{22}$/);
    expect(two.session_id).not.toBe(one.session_id);
    expect(one.token).not.toContain(SECRET_KEY);
  });

  it("an identity proved with the widget secret's HMAC is user-<user_id>; a wrong or missing hash, or none where required, is 403", async () => {
    const { alice, api, visit, enableWidget, newSession } = server;
    await enableWidget(alice);
    const path = `/v1/widget/${alice.botId}/sessions`;
    // Before the owner has made a secret, no identity can be verified.
    expect(await visit("POST", path, { body: { user_id: "42", user_hash: "0".repeat(64) } })).toMatchObject({ status: 403, json: IDENTITY });
    const made = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/widget-secret`);
    expect(made.status).toBe(201);
    const hash = (userId: string, secret = made.json.secret as string) => createHmac("sha256", secret).update(userId).digest("hex");
    expect(await newSession(alice.botId, { user_id: "42", user_hash: hash("42") })).toMatchObject({ session_id: "user-42" });
    for (const body of [{ user_id: "42" }, { user_id: "42", user_hash: hash("43") }, { user_id: "42", user_hash: hash("42").toUpperCase() }, { user_id: "42", user_hash: hash("42", "another secret") }]) {
      expect(await visit("POST", path, { body }), JSON.stringify(body)).toMatchObject({ status: 403, json: IDENTITY });
    }
    // A new secret replaces the old: the old hashes stop working.
    const again = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/widget-secret`);
    expect(await visit("POST", path, { body: { user_id: "42", user_hash: hash("42") } })).toMatchObject({ status: 403, json: IDENTITY });
    expect(await newSession(alice.botId, { user_id: "42", user_hash: hash("42", again.json.secret as string) })).toMatchObject({ session_id: "user-42" });
    // identity_required: an anonymous visitor may not start a session, nor chat in one started before.
    const earlier = await newSession(alice.botId);
    await enableWidget(alice, { identity_required: true });
    expect(await visit("POST", path, { body: {} })).toMatchObject({ status: 403, json: IDENTITY });
    expect(await visit("POST", `/v1/widget/${alice.botId}/messages`, { token: earlier.token, body: { message: "Hi" } })).toMatchObject({ status: 403, json: IDENTITY });
    const verified = await newSession(alice.botId, { user_id: "42", user_hash: hash("42", again.json.secret as string) });
    expect((await visit("POST", `/v1/widget/${alice.botId}/messages`, { token: verified.token, body: { message: "Hi" } })).status).toBe(200);
    expect((await visit("GET", `/v1/widget/${alice.botId}`)).json.identity_required).toBe(true);
    await enableWidget(alice, { identity_required: false });
    expect(await visit("POST", path, { body: { user_id: "u".repeat(129) } })).toMatchObject({ status: 422, json: { detail: "user_id: must be at most 128 characters" } });
    expect(await visit("POST", path, { body: { user_id: "" } })).toMatchObject({ status: 422, json: { detail: "user_id: must be a non-empty string" } });
  });

  it("a missing, altered, expired or another chatbot's token is 401 with one text, on every route that takes one", async () => {
    const { alice, bob, visit, enableWidget, newSession } = server;
    await enableWidget(alice);
    await enableWidget(bob);
    const { token, session_id } = await newSession(alice.botId);
    const [version, payload, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ c: alice.botId, s: "visitor-someone-else", e: 4_000_000_000 })).toString("base64url");
    const signer = createVisitorTokens(Buffer.from(SECRET_KEY, "utf8"));
    const now = Date.now() * 1000;
    const expired = signer.issue(alice.botId, session_id, now - VISITOR_TOKEN_TTL_MICROS - 1_000_000);
    // Signed by the server's own key, unexpired: the test's signer is the server's.
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: signer.issue(alice.botId, session_id, now) })).status).toBe(200);
    const bobs = (await newSession(bob.botId)).token;
    // The MAC's last character carries 4 bits and 2 spare ones: its neighbour in the alphabet
    // decodes to the same bytes, and is still another token.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    const sameBytes = `${version}.${payload}.${mac!.slice(0, -1)}${alphabet[alphabet.indexOf(mac!.at(-1)!) ^ 1]}`;
    expect(Buffer.from(sameBytes.split(".")[2]!, "base64url")).toEqual(Buffer.from(mac!, "base64url"));
    const bad = [undefined, "", "garbage", `${version}.${forged}.${mac}`, `${version}.${payload}.${mac!.slice(1)}A`, sameBytes, `${version}.${payload}.${mac}=`, expired, bobs];
    for (const route of routes(alice.botId).filter((route) => !route.path.endsWith("/sessions") && route.path !== `/v1/widget/${alice.botId}`)) {
      for (const candidate of bad) {
        const answer = await visit(route.method, route.path, { token: candidate, body: route.body });
        expect(answer.status, `${route.method} ${route.path} with ${String(candidate).slice(0, 20)}`).toBe(401);
        expect(answer.json).toEqual(UNAUTHORIZED);
        expect(answer.headers.get("www-authenticate")).toBe("Bearer");
      }
    }
    // A token in the URL is no token.
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages?token=${token}`)).status).toBe(401);
  });
});

describe("a visitor's messages", () => {
  it("go through the owner's pipeline: 200 {message, reply} with sources, in the inbox, in the session's messages", async () => {
    const { alice, visit, enableWidget, newSession, runtime, context, api } = server;
    await enableWidget(alice);
    // Added from the command line: its source is the file's absolute path, which visitors never see.
    await runtime.parley.admin.ingestDocument(alice.botId, { source: "/srv/acme/knowledge/warranty.md", title: "Warranty", text: "Every kettle has a 2-year limited warranty." });
    const { token, session_id } = await newSession(alice.botId);
    context.openai.chat.enqueue(replyWith("Two years."));
    const answer = await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "  How long is the kettle warranty?  " } });
    expect(answer.status).toBe(200);
    expect(answer.json.message).toMatchObject({ id: expect.stringMatching(UUID), author: "user", agent_name: null, content: "How long is the kettle warranty?", created_at: expect.stringMatching(TIME), sources: [] });
    expect(answer.json.reply).toMatchObject({ author: "model", agent_name: null, content: "Two years.", sources: [{ document_id: expect.stringMatching(UUID), title: "Warranty", source: "warranty.md", page: null }] });
    // The owner sees it in the inbox like any other conversation.
    const inbox = await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`);
    expect(inbox.json.data.map((row: { session_id: string }) => row.session_id)).toContain(session_id);
    // The owner's view keeps the whole path.
    const conversationId = inbox.json.data.find((row: { session_id: string }) => row.session_id === session_id).id as string;
    const conversation = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`);
    expect(conversation.json.messages.at(-1).sources[0].source).toBe("/srv/acme/knowledge/warranty.md");
    // The session's messages, oldest first; after the first, only the reply.
    const listed = await visit("GET", `/v1/widget/${alice.botId}/messages`, { token });
    expect(listed.status).toBe(200);
    expect(listed.json.data).toEqual([answer.json.message, answer.json.reply]);
    const after = await visit("GET", `/v1/widget/${alice.botId}/messages?after=${answer.json.message.id as string}`, { token });
    expect(after.json.data).toEqual([answer.json.reply]);
    expect(await visit("GET", `/v1/widget/${alice.botId}/messages?after=${UNKNOWN_ID}`, { token })).toMatchObject({
      status: 422,
      json: { detail: "after: must be the id of a message of this conversation" },
    });
    // A new session has no messages yet.
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: (await newSession(alice.botId)).token })).json).toEqual({ data: [] });
    // Bad bodies: the chat route's rules.
    expect(await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "   " } })).toMatchObject({ status: 422, json: { detail: "message: must be a non-empty string" } });
    expect(await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: [] })).toMatchObject({ status: 422, json: { detail: "body: must be a JSON object" } });
  });

  it("fire the events of an owner's chat: conversation.started once, message.received and message.sent for each", async () => {
    const { alice, visit, enableWidget, newSession, context } = server;
    await enableWidget(alice);
    const events = await openEventStream(server.url, alice.adminKey);
    await expect.poll(() => events.comments, { timeout: 10_000, interval: 10 }).toContain("connected");
    const { token, session_id } = await newSession(alice.botId);
    const ofSession = () =>
      events.events
        .map((event) => JSON.parse(event.data) as { type: string; data: { session_id?: string; role?: string; content?: string } })
        .filter((event) => event.data.session_id === session_id);
    for (const [question, answer] of [["Is it dishwasher safe?", "No."], ["And the lid?", "Neither."]] as const) {
      context.openai.chat.enqueue(replyWith(answer));
      expect((await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: question } })).status).toBe(200);
    }
    await expect
      .poll(() => ofSession().map((event) => event.type), { timeout: 10_000, interval: 10 })
      .toEqual(["conversation.started", "message.received", "message.sent", "message.received", "message.sent"]);
    expect(ofSession().map((event) => event.data.content ?? null)).toEqual([null, "Is it dishwasher safe?", "No.", "And the lid?", "Neither."]);
    events.drop();
  });

  it("while an agent has the conversation: 202 with reply null, and a stream ends with handoff", async () => {
    const { alice, visit, enableWidget, newSession, api, url } = server;
    await enableWidget(alice);
    const { token, session_id } = await newSession(alice.botId);
    const first = await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "Hello?" } });
    expect(first.status).toBe(200);
    const conversation = (await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`)).json.data.find((row: { session_id: string }) => row.session_id === session_id);
    expect((await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversation.id as string}/takeover`)).status).toBe(200);
    const held = await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "Anyone there?" } });
    expect(held.status).toBe(202);
    expect(held.json).toEqual({ message: expect.objectContaining({ author: "user", content: "Anyone there?" }), reply: null });
    const stream = await openStream(`${url}/v1/widget/${alice.botId}/messages`, { token, body: { message: "Still there?" } });
    expect(stream.status).toBe(200);
    await stream.ended;
    expect(stream.events.map((event) => event.event)).toEqual(["message", "handoff"]);
    expect(JSON.parse(stream.events[0]!.data)).toMatchObject({ author: "user", content: "Still there?" });
    expect(JSON.parse(stream.events[1]!.data)).toEqual({});
    await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversation.id as string}/takeover`);
  });

  it("a paused chatbot refuses as the chat route does, storing nothing", async () => {
    const { alice, visit, enableWidget, newSession, runtime } = server;
    await enableWidget(alice);
    const { token } = await newSession(alice.botId);
    await runtime.parley.admin.pauseChatbot(alice.botId);
    try {
      expect(await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "Hi" } })).toMatchObject({ status: 403, json: { detail: "Chatbot is paused by its owner." } });
      expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token })).json).toEqual({ data: [] });
    } finally {
      await runtime.parley.admin.resumeChatbot(alice.botId);
    }
  });
});

describe("a streamed reply", () => {
  it("is message, each delta as the model writes it, then the stored reply with its sources", async () => {
    const { alice, enableWidget, newSession, runtime, context, url, visit } = server;
    await enableWidget(alice);
    // A path the command line stored on Windows: the visitor sees the file's name.
    await runtime.parley.admin.ingestDocument(alice.botId, { source: "C:\\acme\\kb\\descaling.md", title: "Descaling", text: "Descale the kettle every month with citric acid." });
    const { token } = await newSession(alice.botId);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    context.openai.chat.enqueue(streamWith(["Descale", " monthly", gate, " with citric acid."]));
    const stream = await openStream(`${url}/v1/widget/${alice.botId}/messages`, { token, body: { message: "How do I descale the kettle?" } });
    expect(stream.status).toBe(200);
    expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    // The first two deltas arrive while the model is still held: the stream is live, not buffered.
    await stream.next((event) => event.event === "delta" && JSON.parse(event.data).text === " monthly");
    expect(stream.events.map((event) => event.event)).toEqual(["message", "delta", "delta"]);
    const message = JSON.parse(stream.events[0]!.data);
    expect(message).toMatchObject({ author: "user", content: "How do I descale the kettle?", sources: [] });
    expect(JSON.parse(stream.events[1]!.data)).toEqual({ text: "Descale" });
    release();
    await stream.ended;
    expect(stream.events.map((event) => event.event)).toEqual(["message", "delta", "delta", "delta", "reply"]);
    const reply = JSON.parse(stream.events[4]!.data);
    expect(reply).toMatchObject({ author: "model", content: "Descale monthly with citric acid." });
    // The document the prompt used first is named first (the warranty of an earlier test may follow).
    expect(reply.sources[0]).toEqual({ document_id: expect.stringMatching(UUID), title: "Descaling", source: "descaling.md", page: null });
    // What was streamed is what was stored.
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token })).json.data).toEqual([message, reply]);
  });

  it("is stored whole when the visitor goes away after the first delta", async () => {
    const { alice, enableWidget, newSession, context, url, visit, runtime } = server;
    await enableWidget(alice);
    const { token } = await newSession(alice.botId);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    context.openai.chat.enqueue(streamWith(["The reply", gate, " goes on without you."]));
    // The server's side of the stream: the model is let go on only once the server has seen the visitor leave.
    const serverClosed = new Promise<void>((resolve) => {
      const watch = (request: IncomingMessage, response: ServerResponse) => {
        if (request.method !== "POST" || request.headers.accept !== "text/event-stream") return;
        server.running.server.off("request", watch);
        response.once("close", () => resolve());
      };
      server.running.server.on("request", watch);
    });
    const stream = await openStream(`${url}/v1/widget/${alice.botId}/messages`, { token, body: { message: "Tell me something." } });
    await stream.next((event) => event.event === "delta");
    stream.drop();
    await serverClosed;
    release();
    await runtime.parley.whenRepliesSettled();
    const history = (await visit("GET", `/v1/widget/${alice.botId}/messages`, { token })).json.data;
    expect(history.map((message: { author: string; content: string }) => [message.author, message.content])).toEqual([
      ["user", "Tell me something."],
      ["model", "The reply goes on without you."],
    ]);
  });

  it("refusals before anything is stored are JSON answers; a provider failure after `message` is an error event", async () => {
    const { alice, enableWidget, newSession, context, url } = server;
    await enableWidget(alice);
    const { token } = await newSession(alice.botId);
    const refused = await openStream(`${url}/v1/widget/${alice.botId}/messages`, { token, body: { message: "" } });
    expect(refused.status).toBe(422);
    expect(refused.headers["content-type"]).toBe("application/json; charset=utf-8");
    await refused.ended;
    expect(JSON.parse(refused.body)).toEqual({ detail: "message: must be a non-empty string" });
    context.openai.chat.enqueue(streamWith(["Half a"], { end: "error" }), streamWith([], { end: "error" }), streamWith([], { end: "error" }));
    const failed = await openStream(`${url}/v1/widget/${alice.botId}/messages`, { token, body: { message: "Break, please." } });
    await failed.ended;
    const last = failed.events.at(-1)!;
    expect(failed.events[0]!.event).toBe("message");
    expect(last.event).toBe("error");
    expect(JSON.parse(last.data)).toEqual({ detail: "The language model provider failed to answer." });
  });
});

describe("the session's events", () => {
  it("carry an agent's reply and the takeover as they happen, only this session's, and resume with Last-Event-ID", async () => {
    const { alice, enableWidget, newSession, url, visit, api } = server;
    await enableWidget(alice);
    const mine = await newSession(alice.botId);
    const other = await newSession(alice.botId);
    await visit("POST", `/v1/widget/${alice.botId}/messages`, { token: mine.token, body: { message: "I need a human." } });
    await visit("POST", `/v1/widget/${alice.botId}/messages`, { token: other.token, body: { message: "Me too." } });
    const stream = await openStream(`${url}/v1/widget/${alice.botId}/events`, { token: mine.token });
    expect(stream.status).toBe(200);
    const rows = (await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`)).json.data as { id: string; session_id: string }[];
    const conversationOf = (sessionId: string) => rows.find((row) => row.session_id === sessionId)!.id;
    // Another session's takeover and reply never reach this stream.
    await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationOf(other.session_id)}/messages`, { content: "Not for you." });
    await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationOf(mine.session_id)}/takeover`);
    await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationOf(mine.session_id)}/messages`, { content: "Hi, I am Dana." });
    const sent = await stream.next((event) => event.event === "message.sent");
    expect(JSON.parse(sent.data)).toMatchObject({ type: "message.sent", data: { session_id: mine.session_id, author: "agent", agent_name: "operator", content: "Hi, I am Dana." } });
    await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversationOf(mine.session_id)}/takeover`);
    await stream.next((event) => event.event === "conversation.takeover_ended");
    expect(stream.events.map((event) => event.event)).toEqual(["conversation.takeover_started", "message.sent", "conversation.takeover_ended"]);
    for (const event of stream.events) expect(JSON.parse(event.data).data.session_id).toBe(mine.session_id);
    stream.drop();
    // Resuming after the takeover started gives the two later events, from the outbox.
    const resumed = await openStream(`${url}/v1/widget/${alice.botId}/events`, { token: mine.token, headers: { "last-event-id": stream.events[0]!.id } });
    await resumed.next((event) => event.event === "conversation.takeover_ended");
    expect(resumed.events.map((event) => event.id)).toEqual(stream.events.slice(1).map((event) => event.id));
    resumed.drop();
    // The agent's reply is in the session's messages, with its name.
    const listed = (await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: mine.token })).json.data;
    expect(listed.at(-1)).toMatchObject({ author: "agent", agent_name: "operator", content: "Hi, I am Dana." });
  });

  it("are at most 5 per session at once: the 6th is 429, and closing one makes room", async () => {
    const { alice, enableWidget, newSession, url } = server;
    await enableWidget(alice);
    const { token } = await newSession(alice.botId);
    const open = await Promise.all(Array.from({ length: 5 }, () => openStream(`${url}/v1/widget/${alice.botId}/events`, { token })));
    expect(open.map((stream) => stream.status)).toEqual([200, 200, 200, 200, 200]);
    const sixth = await openStream(`${url}/v1/widget/${alice.botId}/events`, { token });
    expect(sixth.status).toBe(429);
    await sixth.ended;
    expect(JSON.parse(sixth.body)).toEqual({ detail: "Too many event streams open for this visitor session: at most 5 at once. Close one before opening another." });
    // Another session is counted apart.
    const other = await openStream(`${url}/v1/widget/${alice.botId}/events`, { token: (await newSession(alice.botId)).token });
    expect(other.status).toBe(200);
    other.drop();
    open[0]!.drop();
    await expect.poll(async () => {
      const again = await openStream(`${url}/v1/widget/${alice.botId}/events`, { token });
      again.drop();
      return again.status;
    }).toBe(200);
    for (const stream of open) stream.drop();
  });
});
