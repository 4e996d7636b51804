import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, type OperatorServer } from "./admin-test-support.js";
import { openEventStream, type OpenStream } from "./sse-client.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer({ heartbeatMs: 50 });
});
afterAll(async () => {
  await server?.close();
});

const poll = { timeout: 10_000, interval: 10 };
const typesOf = (stream: OpenStream) => stream.events.map((event) => event.event);
/** The ids and types of a user's events in the outbox after one event (or all), in order: what a stream must carry. */
function outboxAfter(userId: string, afterId?: string) {
  const rows = server.runtime.database
    .prepare(
      `SELECT id, type FROM outbox_events WHERE user_id = ? AND seq > coalesce((SELECT seq FROM outbox_events WHERE id = ?), 0) ORDER BY seq`,
    )
    .all(userId, afterId ?? null) as { id: string; type: string }[];
  return rows.map((row) => ({ id: row.id, event: row.type }));
}
const idsAndTypes = (stream: OpenStream) => stream.events.map(({ id, event }) => ({ id, event }));

describe("GET /v1/admin/events (Server-Sent Events)", () => {
  it("streams the caller's events live, each with its id, its type and the webhook body, and none of another user's", async () => {
    const { alice, bob, chat } = server;
    const mine = await openEventStream(server.url, alice.adminKey);
    const theirs = await openEventStream(server.url, bob.adminKey);
    expect(mine.status).toBe(200);
    expect(mine.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(mine.headers["cache-control"]).toBe("no-store");
    expect(mine.headers["ratelimit-limit"]).toBe("600");
    await expect.poll(() => mine.comments, poll).toContain("connected");

    await chat(alice, "live-1", "Hello, live stream");
    await chat(bob, "bob-live", "Bob's own visitor");
    await expect.poll(() => typesOf(mine), poll).toEqual(["conversation.started", "message.received", "message.sent"]);
    await expect.poll(() => typesOf(theirs), poll).toEqual(["conversation.started", "message.received", "message.sent"]);
    expect(idsAndTypes(mine)).toEqual(outboxAfter(alice.userId));
    expect(idsAndTypes(theirs)).toEqual(outboxAfter(bob.userId));
    const received = JSON.parse(mine.events[1]!.data) as { type: string; timestamp: string; data: Record<string, unknown> };
    expect(received).toEqual({
      type: "message.received",
      timestamp: expect.any(String),
      data: expect.objectContaining({ chatbot_id: alice.botId, session_id: "live-1", role: "user", content: "Hello, live stream", human_takeover: false }),
    });
    expect(mine.body).not.toContain("bob-live");
    expect(theirs.body).not.toContain("live-1");

    // An agent's takeover and reply are events of the stream too.
    const conversationId = (await server.api(alice.adminKey, "GET", "/v1/admin/conversations")).json.data[0].id as string;
    await server.api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "An agent here." });
    await expect.poll(() => typesOf(mine).slice(3), poll).toEqual(["conversation.takeover_started", "message.sent"]);
    expect(JSON.parse(mine.events[4]!.data).data).toMatchObject({ author: "agent", content: "An agent here." });
    mine.drop();
    theirs.drop();
  });

  it("sends a comment line as heartbeat while idle", async () => {
    const stream = await openEventStream(server.url, server.bob.adminKey);
    await expect.poll(() => stream.comments.filter((comment) => comment === "keep-alive").length, poll).toBeGreaterThanOrEqual(2);
    expect(stream.events).toEqual([]);
    stream.drop();
  });

  it("resumes after a dropped connection with Last-Event-ID: exactly the missed events, no duplicates, then live", async () => {
    const { alice, chat, api } = server;
    const first = await openEventStream(server.url, alice.adminKey);
    await expect.poll(() => first.comments, poll).toContain("connected");
    await chat(alice, "resume-1", "Before the drop");
    await expect.poll(() => first.events.length, poll).toBe(3);
    const lastSeen = first.events.at(-1)!.id;
    first.drop();
    await first.ended;

    // Missed while away: a chat, a takeover, an agent's reply, a hand-back.
    await chat(alice, "resume-1", "While you were away");
    const conversationId = (await api(alice.adminKey, "GET", "/v1/admin/conversations?limit=1")).json.data[0].id as string;
    await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "Agent reply while away" });
    await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversationId}/takeover`);
    const missed = outboxAfter(alice.userId, lastSeen);
    expect(missed.map((event) => event.event)).toEqual(["message.received", "message.sent", "conversation.takeover_started", "message.sent", "conversation.takeover_ended"]);

    const resumed = await openEventStream(server.url, alice.adminKey, lastSeen);
    await expect.poll(() => resumed.events.length, poll).toBe(missed.length);
    expect(idsAndTypes(resumed)).toEqual(missed);
    // Then live, in order, with nothing sent twice.
    await chat(alice, "resume-1", "After the return");
    await expect.poll(() => resumed.events.length, poll).toBe(missed.length + 2);
    expect(idsAndTypes(resumed)).toEqual(outboxAfter(alice.userId, lastSeen));
    expect(new Set(resumed.events.map((event) => event.id)).size).toBe(resumed.events.length);
    resumed.drop();

    // Another user's event id resumes nothing of Alice's for Bob.
    const bobs = await openEventStream(server.url, server.bob.adminKey, missed[0]!.id);
    await expect.poll(() => bobs.comments, poll).toContain("connected");
    await server.chat(server.bob, "bob-after", "Bob again");
    await expect.poll(() => typesOf(bobs), poll).toEqual(["conversation.started", "message.received", "message.sent"]);
    expect(bobs.body).not.toContain("resume-1");
    bobs.drop();
  });

  it("answers a chat key 403 and no key 401, without opening a stream", async () => {
    const refused = await openEventStream(server.url, server.alice.chatKey);
    await refused.ended;
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ detail: "This API key cannot manage chatbots; use a key with the admin scope." });
    const unknown = await openEventStream(server.url, "prl_not-a-key");
    await unknown.ended;
    expect(unknown.status).toBe(401);
  });
});

describe("revoking the key of an open stream", () => {
  it("ends the stream by the next heartbeat", async () => {
    const { api, alice } = server;
    const created = await api(alice.adminKey, "POST", "/v1/admin/keys", { name: "console tab", scope: "admin" });
    const stream = await openEventStream(server.url, created.json.key as string);
    await expect.poll(() => stream.comments, poll).toContain("connected");
    expect((await api(alice.adminKey, "DELETE", `/v1/admin/keys/${created.json.id as string}`)).status).toBe(204);
    let ended = false;
    void stream.ended.then(() => (ended = true));
    await expect.poll(() => ended, poll).toBe(true);
    // The key no longer opens one either.
    const again = await openEventStream(server.url, created.json.key as string);
    await again.ended;
    expect(again.status).toBe(401);
  });
});

describe("stopping the server with streams open", () => {
  it("ends every open stream and resolves", async () => {
    const own = await startOperatorServer();
    const streams = await Promise.all([own.alice.adminKey, own.alice.adminKey, own.bob.adminKey].map((key) => openEventStream(own.url, key)));
    for (const stream of streams) await expect.poll(() => stream.comments, poll).toContain("connected");
    await own.running.stop();
    await Promise.all(streams.map((stream) => stream.ended));
    await own.context.cleanup();
  });
});
