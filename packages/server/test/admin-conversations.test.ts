import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, TIME, UUID, type OperatorServer } from "./admin-test-support.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});

const ids = (page: { data: { id: string }[] }) => page.data.map((row) => row.id);

describe("operator API: conversations", () => {
  it("lists conversations newest activity first with their facts, filtered by chatbot and status", async () => {
    const { api, alice, chat } = server;
    const other = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Second", provider: "openai", model: "gpt-test" })).json.id as string;
    await chat(alice, "first", "Hello there");
    await chat(alice, "second", "Hi", other);
    await chat(alice, "first", "Still there?");
    const listed = await api(alice.adminKey, "GET", "/v1/admin/conversations");
    expect(listed.status).toBe(200);
    expect(listed.json.next_cursor).toBeNull();
    expect(listed.json.data.map((row: { session_id: string }) => row.session_id)).toEqual(["first", "second"]);
    expect(listed.json.data[0]).toEqual({
      id: expect.stringMatching(UUID),
      chatbot_id: alice.botId,
      session_id: "first",
      human_takeover: false,
      needs_attention: false,
      attention_reason: null,
      message_count: 4,
      unread_count: 2,
      last_message: { author: "model", agent_name: null, content: "This is the fake model's reply.", created_at: expect.stringMatching(TIME) },
      events: [],
      created_at: expect.stringMatching(TIME),
      updated_at: expect.stringMatching(TIME),
    });
    const first = listed.json.data[0];
    expect(first.updated_at > first.created_at).toBe(true);

    const ofOther = await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${other}`);
    expect(ofOther.json.data.map((row: { session_id: string }) => row.session_id)).toEqual(["second"]);
    expect(ids((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=bot")).json)).toEqual(ids(listed.json));
    expect((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=human")).json).toEqual({ data: [], next_cursor: null });
    expect((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=attention")).json).toEqual({ data: [], next_cursor: null });

    await api(alice.adminKey, "POST", `/v1/admin/conversations/${first.id as string}/takeover`);
    expect(ids((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=human")).json)).toEqual([first.id]);
    expect(ids((await api(alice.adminKey, "GET", "/v1/admin/conversations?status=bot")).json)).toEqual([ofOther.json.data[0].id]);
    await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${first.id as string}/takeover`);
  });

  it("shows one conversation with its messages oldest first, and only those after `after`", async () => {
    const { api, alice, chat } = server;
    await chat(alice, "reader", "What are your hours?");
    await chat(alice, "reader", "And on Sunday?");
    const conversationId = (await api(alice.adminKey, "GET", "/v1/admin/conversations?limit=1")).json.data[0].id as string;
    const shown = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`);
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ id: conversationId, session_id: "reader", message_count: 4 });
    expect(shown.json.messages).toEqual([
      { id: expect.stringMatching(UUID), author: "user", agent_name: null, content: "What are your hours?", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
      { id: expect.stringMatching(UUID), author: "model", agent_name: null, content: "This is the fake model's reply.", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
      { id: expect.stringMatching(UUID), author: "user", agent_name: null, content: "And on Sunday?", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
      { id: expect.stringMatching(UUID), author: "model", agent_name: null, content: "This is the fake model's reply.", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
    ]);
    const after = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}?after=${shown.json.messages[1].id as string}`);
    expect(after.status).toBe(200);
    expect(after.json.messages).toEqual(shown.json.messages.slice(2));
    const afterLast = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}?after=${shown.json.messages[3].id as string}`);
    expect(afterLast.json.messages).toEqual([]);
  });

  it("takes a conversation over and gives it back (200 with the conversation), and stores an agent's reply (201 with the message)", async () => {
    const { api, alice, chat } = server;
    await chat(alice, "handoff", "Can I talk to a person?");
    const conversationId = (await api(alice.adminKey, "GET", "/v1/admin/conversations?limit=1")).json.data[0].id as string;
    const started = await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationId}/takeover`);
    expect(started.status).toBe(200);
    expect(started.json).toMatchObject({ id: conversationId, session_id: "handoff", human_takeover: true, message_count: 2 });
    expect(started.json.messages).toBeUndefined();
    // During a takeover the visitor's message is stored and answered 202 with an empty response.
    const waiting = await chat(alice, "handoff", "Hello?");
    expect(waiting.status).toBe(202);
    expect(waiting.json).toEqual({ response: "" });

    const reply = await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "  Hi, I am Dana from support.  " });
    expect(reply.status).toBe(201);
    expect(reply.json).toEqual({ id: expect.stringMatching(UUID), author: "agent", agent_name: "operator", content: "Hi, I am Dana from support.", created_at: expect.stringMatching(TIME), sources: [], feedback: null });

    const ended = await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversationId}/takeover`);
    expect(ended.status).toBe(200);
    expect(ended.json).toMatchObject({ id: conversationId, human_takeover: false, message_count: 4, last_message: { author: "agent", content: "Hi, I am Dana from support." } });
    // Ending again is idempotent.
    expect((await api(alice.adminKey, "DELETE", `/v1/admin/conversations/${conversationId}/takeover`)).json).toMatchObject({ human_takeover: false });

    // An agent's reply to a conversation the chatbot has takes it over first.
    const direct = await api(alice.adminKey, "POST", `/v1/admin/conversations/${conversationId}/messages`, { content: "One more thing." });
    expect(direct.status).toBe(201);
    expect((await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`)).json).toMatchObject({ human_takeover: true, message_count: 5 });
  });
});

describe("operator API: a model reply's sources", () => {
  it("shows the documents a reply's context came from on the reply, [] on other messages, in both message views; the spec's chat still answers only {response}", async () => {
    const { api, alice, runtime } = server;
    const botId = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Sourced", provider: "openai", model: "gpt-test" })).json.id as string;
    const queued = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${botId}/documents`, { title: "Refund policy", text: "Refunds are paid back within 14 days of a return." });
    expect(queued.status).toBe(202);
    await runtime.ingestions.runOnce();
    const [document] = (await api(alice.adminKey, "GET", `/v1/admin/chatbots/${botId}/documents`)).json.data as { id: string; title: string; source: string }[];

    const chat = await api(alice.chatKey, "POST", `/v1/chatbots/${botId}/chat`, { message: "How long do refunds take?", session_id: "cited" });
    expect(chat.status).toBe(200);
    expect(Object.keys(chat.json)).toEqual(["response"]);

    const conversationId = (await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${botId}`)).json.data[0].id as string;
    const shown = await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversationId}`);
    const expectedSources = [{ document_id: document!.id, title: "Refund policy", source: document!.source, page: null }];
    expect(shown.json.messages.map((message: { author: string; sources: unknown }) => [message.author, message.sources])).toEqual([
      ["user", []],
      ["model", expectedSources],
    ]);
    const session = await api(alice.chatKey, "GET", `/v1/chatbots/${botId}/sessions/cited/messages`);
    expect(session.json.data[1].sources).toEqual(expectedSources);
  });
});

describe("the session messages route for chat keys (docs/design.md §10)", () => {
  it("lists a session's messages oldest first with authors, `?after=` for the newer ones, and 404 for a session without a conversation", async () => {
    const { api, alice, chat } = server;
    await chat(alice, "widget-1", "Do you ship abroad?");
    const path = `/v1/chatbots/${alice.botId}/sessions/widget-1/messages`;
    const listed = await api(alice.chatKey, "GET", path);
    expect(listed.status).toBe(200);
    expect(listed.json).toEqual({
      data: [
        { id: expect.stringMatching(UUID), author: "user", agent_name: null, content: "Do you ship abroad?", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
        { id: expect.stringMatching(UUID), author: "model", agent_name: null, content: "This is the fake model's reply.", created_at: expect.stringMatching(TIME), sources: [], feedback: null },
      ],
    });
    expect(listed.headers.get("ratelimit-limit")).toBe("60");
    const after = await api(alice.chatKey, "GET", `${path}?after=${listed.json.data[0].id as string}`);
    expect(after.json).toEqual({ data: [listed.json.data[1]] });
    // An admin key may read it too.
    expect((await api(alice.adminKey, "GET", path)).json).toEqual(listed.json);

    const none = await api(alice.chatKey, "GET", `/v1/chatbots/${alice.botId}/sessions/never-seen/messages`);
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ detail: "Conversation not found." });
    const badAfter = await api(alice.chatKey, "GET", `${path}?after=not-a-message`);
    expect(badAfter.status).toBe(422);
    expect(badAfter.json).toEqual({ detail: "after: must be the id of a message of this conversation" });
    const noKey = await api(undefined, "GET", path);
    expect(noKey.status).toBe(401);
  });
});
