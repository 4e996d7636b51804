import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TIME, UNKNOWN_ID } from "./admin-test-support.js";
import { startWidgetServer, type WidgetServer } from "./widget-test-support.js";

// A visitor rates the model's replies of its own session (docs/design.md §14): 204, shown on the
// message, replaced by a new rating; any other message is 404.

let server: WidgetServer;
beforeAll(async () => {
  server = await startWidgetServer();
});
afterAll(async () => {
  await server?.close();
});

const MESSAGE_NOT_FOUND = { detail: "Message not found." };

describe("feedback on a reply", () => {
  it("is 204, shows on the message in the session and the inbox, and a new rating replaces it", async () => {
    const { alice, enableWidget, newSession, visit, api } = server;
    await enableWidget(alice);
    const { token } = await newSession(alice.botId);
    const exchange = (await visit("POST", `/v1/widget/${alice.botId}/messages`, { token, body: { message: "Is it dishwasher safe?" } })).json;
    expect(exchange.reply.feedback).toBeNull();
    const path = `/v1/widget/${alice.botId}/messages/${exchange.reply.id as string}/feedback`;
    const rated = await visit("POST", path, { token, body: { rating: "down", comment: "  It did not say.  " } });
    expect(rated.status).toBe(204);
    expect(rated.text).toBe("");
    const listed = (await visit("GET", `/v1/widget/${alice.botId}/messages`, { token })).json.data;
    expect(listed[1].feedback).toEqual({ rating: "down", comment: "It did not say.", created_at: expect.stringMatching(TIME) });
    expect(listed[0].feedback).toBeNull();
    expect((await visit("POST", path, { token, body: { rating: "up" } })).status).toBe(204);
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token })).json.data[1].feedback).toMatchObject({ rating: "up", comment: null });
    const conversation = (await api(alice.adminKey, "GET", `/v1/admin/conversations?chatbot_id=${alice.botId}`)).json.data[0].id as string;
    const shown = (await api(alice.adminKey, "GET", `/v1/admin/conversations/${conversation}`)).json.messages;
    expect(shown.find((message: { id: string }) => message.id === exchange.reply.id).feedback).toMatchObject({ rating: "up" });
  });

  it("is 404 for the visitor's own message, another session's reply and an unknown id; 422 for a rating that is neither up nor down", async () => {
    const { alice, enableWidget, newSession, visit } = server;
    await enableWidget(alice);
    const mine = await newSession(alice.botId);
    const other = await newSession(alice.botId);
    const exchange = (await visit("POST", `/v1/widget/${alice.botId}/messages`, { token: mine.token, body: { message: "Hello" } })).json;
    const rate = (token: string, messageId: string, body: unknown = { rating: "up" }) => visit("POST", `/v1/widget/${alice.botId}/messages/${messageId}/feedback`, { token, body });
    expect(await rate(mine.token, exchange.message.id)).toMatchObject({ status: 404, json: MESSAGE_NOT_FOUND });
    expect(await rate(other.token, exchange.reply.id)).toMatchObject({ status: 404, json: MESSAGE_NOT_FOUND });
    expect(await rate(mine.token, UNKNOWN_ID)).toMatchObject({ status: 404, json: MESSAGE_NOT_FOUND });
    expect(await rate(mine.token, "not-a-uuid")).toMatchObject({ status: 404, json: MESSAGE_NOT_FOUND });
    expect(await rate(mine.token, exchange.reply.id, { rating: "meh" })).toMatchObject({ status: 422, json: { detail: "rating: must be one of up, down" } });
    expect(await rate(mine.token, exchange.reply.id, { rating: "up", comment: "x".repeat(1001) })).toMatchObject({ status: 422, json: { detail: "comment: must be at most 1000 characters" } });
    expect((await visit("GET", `/v1/widget/${alice.botId}/messages`, { token: mine.token })).json.data[1].feedback).toBeNull();
  });
});
