import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, type OperatorServer } from "./admin-test-support.js";
import { startReceiver } from "./webhook-test-support.js";

let server: OperatorServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  server = await startOperatorServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

/** Walks a list page by page with `limit`, calling `between` after each page; the ids in order, and the page sizes. */
async function walk(path: string, limit: number, between: (page: number, seen: string[]) => Promise<void> = async () => {}) {
  const seen: string[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    const separator = path.includes("?") ? "&" : "?";
    const answer = await server.api(server.alice.adminKey, "GET", `${path}${separator}limit=${limit}${cursor === null ? "" : `&cursor=${cursor}`}`);
    expect(answer.status).toBe(200);
    seen.push(...(answer.json.data as { id: string }[]).map((row) => row.id));
    sizes.push(answer.json.data.length);
    cursor = answer.json.next_cursor;
    if (cursor === null) return { seen, sizes };
    await between(page, seen);
  }
  throw new Error("the walk never ended");
}

/** The ids of a whole list in one page (at most 100 rows). */
const whole = async (path: string) => ((await server.api(server.alice.adminKey, "GET", `${path}${path.includes("?") ? "&" : "?"}limit=100`)).json.data as { id: string }[]).map((row) => row.id);

describe("pagination of the operator API's lists", () => {
  it("walks conversations exactly once each, newest activity first, while new conversations arrive", async () => {
    const { alice, chat } = server;
    for (let index = 0; index < 7; index += 1) await chat(alice, `walk-${index}`, `Message ${index}`);
    const expected = await whole("/v1/admin/conversations");
    expect(expected).toHaveLength(7);
    let arrivals = 0;
    const { seen, sizes } = await walk("/v1/admin/conversations", 3, async () => {
      await chat(alice, `arrival-${(arrivals += 1)}`, "New visitor");
    });
    expect(seen).toEqual(expected);
    expect(sizes).toEqual([3, 3, 1]);
    // The arrivals are at the top of the list now, above every row the walk saw.
    expect(arrivals).toBe(2);
    const after = await whole("/v1/admin/conversations");
    expect(after.slice(arrivals)).toEqual(expected);
    // With a filter too: a cursor walk of one chatbot's conversations in pages of one.
    expect((await walk(`/v1/admin/conversations?chatbot_id=${alice.botId}&status=bot`, 1)).seen).toEqual(await whole(`/v1/admin/conversations?chatbot_id=${alice.botId}`));
  });

  it("walks keys, chatbots and webhooks exactly once each while new ones are made", async () => {
    const { api, alice } = server;
    for (let index = 0; index < 5; index += 1) {
      await api(alice.adminKey, "POST", "/v1/admin/keys", { name: `key-${index}` });
      await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: `Bot ${index}`, provider: "openai", model: "gpt-test" });
      await api(alice.adminKey, "POST", "/v1/admin/webhooks", { url: `${receiver.url}?n=${index}` });
    }
    const lists: [string, () => Promise<unknown>][] = [
      ["/v1/admin/keys", () => api(alice.adminKey, "POST", "/v1/admin/keys", { name: "during the walk" })],
      ["/v1/admin/chatbots", () => api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "During", provider: "openai", model: "gpt-test" })],
      ["/v1/admin/webhooks", () => api(alice.adminKey, "POST", "/v1/admin/webhooks", { url: `${receiver.url}?during` })],
    ];
    for (const [path, arrive] of lists) {
      const expected = await whole(path);
      expect(expected.length).toBeGreaterThanOrEqual(5);
      const { seen } = await walk(path, 2, async () => void (await arrive()));
      expect({ path, seen }).toEqual({ path, seen: expected });
      expect(new Set(seen).size).toBe(seen.length);
    }
  });

  it("walks documents and webhook deliveries exactly once each while new ones arrive", async () => {
    const { api, alice, chat, runtime } = server;
    for (let index = 0; index < 5; index += 1) {
      await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/documents`, { title: `Document ${index}`, text: `The text of document ${index}.` });
    }
    await runtime.ingestions.runOnce();
    const documents = `/v1/admin/chatbots/${alice.botId}/documents`;
    const expectedDocuments = await whole(documents);
    expect(expectedDocuments).toHaveLength(5);
    let added = 0;
    const walked = await walk(documents, 2, async () => {
      await api(alice.adminKey, "POST", documents, { title: `Late ${(added += 1)}`, text: "Arrived during the walk." });
      await runtime.ingestions.runOnce();
    });
    expect(walked.seen).toEqual(expectedDocuments);

    // Each chat's events go to each of the webhooks made above: many deliveries.
    await chat(alice, "deliveries", "Events, please");
    await runtime.dispatcher.runOnce();
    const expectedDeliveries = await whole("/v1/admin/webhook-deliveries");
    expect(expectedDeliveries.length).toBeGreaterThan(4);
    const deliveries = await walk("/v1/admin/webhook-deliveries", 4, async (page) => {
      await chat(alice, `deliveries-${page}`, "More events");
      await runtime.dispatcher.runOnce();
    });
    expect(deliveries.seen).toEqual(expectedDeliveries);
  });

  it("goes on after the row a cursor points at is deleted during the walk", async () => {
    const { api, alice } = server;
    for (const [path, remove] of [
      ["/v1/admin/chatbots", (id: string) => api(alice.adminKey, "DELETE", `/v1/admin/chatbots/${id}`)],
      ["/v1/admin/webhooks", (id: string) => api(alice.adminKey, "DELETE", `/v1/admin/webhooks/${id}`)],
    ] as const) {
      const expected = await whole(path);
      expect(expected.length).toBeGreaterThanOrEqual(5);
      const { seen } = await walk(path, 2, async (_page, shown) => {
        // The last row shown, which the next cursor points at, is gone before the next page is asked for.
        expect((await remove(shown.at(-1)!)).status).toBe(204);
      });
      expect({ path, seen }).toEqual({ path, seen: expected });
    }
  });

  it("a list of exactly `limit` rows is one page without a next cursor", async () => {
    const { api, bob } = server;
    const keys = await api(bob.adminKey, "GET", "/v1/admin/keys?limit=2");
    expect(keys.json.data).toHaveLength(2);
    expect(keys.json.next_cursor).toBeNull();
    const first = await api(bob.adminKey, "GET", "/v1/admin/keys?limit=1");
    expect(first.json.next_cursor).toEqual(expect.any(String));
    const second = await api(bob.adminKey, "GET", `/v1/admin/keys?limit=1&cursor=${first.json.next_cursor as string}`);
    expect(second.json.next_cursor).toBeNull();
    expect([first.json.data[0].id, second.json.data[0].id]).toEqual(keys.json.data.map((key: { id: string }) => key.id));
  });
});
