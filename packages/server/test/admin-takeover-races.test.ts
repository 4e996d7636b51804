import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, type OperatorServer } from "./admin-test-support.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});

/** The takeover events of one conversation in the outbox, in order. */
const takeoverEvents = (conversationId: string) =>
  server.runtime.database
    .prepare("SELECT type FROM outbox_events WHERE type LIKE 'conversation.takeover_%' AND json_extract(data, '$.conversation_id') = ? ORDER BY seq")
    .pluck()
    .all(conversationId);

describe("takeover events under repeated and concurrent calls", () => {
  it("fires takeover_started once for two concurrent agent replies, and once for a repeated takeover", async () => {
    const { api, alice, chat } = server;
    await chat(alice, "race", "Hello");
    const id = (await api(alice.adminKey, "GET", "/v1/admin/conversations?limit=1")).json.data[0].id as string;
    const replies = await Promise.all(["First agent", "Second agent"].map((content) => api(alice.adminKey, "POST", `/v1/admin/conversations/${id}/messages`, { content })));
    expect(replies.map((reply) => reply.status)).toEqual([201, 201]);
    expect(takeoverEvents(id)).toEqual(["conversation.takeover_started"]);
    expect((await api(alice.adminKey, "GET", `/v1/admin/conversations/${id}`)).json).toMatchObject({ human_takeover: true, message_count: 4 });

    // Taking over a conversation an agent has already, or handing back twice, fires nothing more.
    await Promise.all([1, 2].map(() => api(alice.adminKey, "POST", `/v1/admin/conversations/${id}/takeover`)));
    expect(takeoverEvents(id)).toEqual(["conversation.takeover_started"]);
    await Promise.all([1, 2].map(() => api(alice.adminKey, "DELETE", `/v1/admin/conversations/${id}/takeover`)));
    expect(takeoverEvents(id)).toEqual(["conversation.takeover_started", "conversation.takeover_ended"]);
  });
});
