import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOperatorServer, TIME, UUID, type OperatorServer } from "./admin-test-support.js";

let server: OperatorServer;
beforeAll(async () => {
  server = await startOperatorServer();
});
afterAll(async () => {
  await server?.close();
});


describe("operator API: chatbots", () => {
  it("creates (201), reads, lists, changes and soft-deletes (204, no body) a chatbot", async () => {
    const { api, alice } = server;
    const created = await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Support Desk", provider: "anthropic", model: "claude-test", system_prompt: "Be brief." });
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      id: expect.stringMatching(UUID),
      name: "Support Desk",
      slug: "support-desk",
      provider: "anthropic",
      model: "claude-test",
      system_prompt: "Be brief.",
      fallback_message: expect.any(String),
      is_active: true,
      created_at: expect.stringMatching(TIME),
      updated_at: expect.stringMatching(TIME),
      documents: 0,
      chunks: 0,
      widget: expect.objectContaining({ enabled: false, title: "Support Desk", has_secret: false }),
    });
    const id = created.json.id as string;
    const read = await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`);
    expect(read.status).toBe(200);
    expect(read.json).toEqual(created.json);

    const listed = await api(alice.adminKey, "GET", "/v1/admin/chatbots");
    expect(listed.status).toBe(200);
    expect(listed.json.next_cursor).toBeNull();
    // Newest first: the one just created, then the tenant's first chatbot.
    expect(listed.json.data.map((bot: { id: string }) => bot.id)).toEqual([id, alice.botId]);

    const changed = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { name: "Help Desk", fallback_message: "Ask a human.", is_active: false });
    expect(changed.status).toBe(200);
    // The slug is fixed at creation.
    expect(changed.json).toMatchObject({ id, name: "Help Desk", slug: "support-desk", fallback_message: "Ask a human.", is_active: false, model: "claude-test" });
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`)).json).toEqual(changed.json);
    // Paused from the API as from the CLI: chat answers 403 and stores nothing.
    const paused = await api(alice.chatKey, "POST", `/v1/chatbots/${id}/chat`, { message: "Hello?", session_id: "paused" });
    expect({ status: paused.status, body: paused.json }).toEqual({ status: 403, body: { detail: "Chatbot is paused by its owner." } });
    expect(server.count("conversations", "chatbot_id = ?", id)).toBe(0);
    // Resumed, and moved to another provider and model, which the next chat uses.
    const resumed = await api(alice.adminKey, "PATCH", `/v1/admin/chatbots/${id}`, { is_active: true, provider: "openai", model: "gpt-moved" });
    expect(resumed.json).toMatchObject({ is_active: true, name: "Help Desk", provider: "openai", model: "gpt-moved" });
    expect((await api(alice.chatKey, "POST", `/v1/chatbots/${id}/chat`, { message: "Hello?", session_id: "resumed" })).status).toBe(200);
    expect((server.context.openai.chat.requests.at(-1)!.body as { model: string }).model).toBe("gpt-moved");

    const deleted = await api(alice.adminKey, "DELETE", `/v1/admin/chatbots/${id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(deleted.headers.get("content-type")).toBeNull();
    const gone = await api(alice.adminKey, "GET", `/v1/admin/chatbots/${id}`);
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ detail: "Chatbot not found." });
    expect((await api(alice.adminKey, "GET", "/v1/admin/chatbots")).json.data.map((bot: { id: string }) => bot.id)).toEqual([alice.botId]);
    // Soft: the row stays, marked deleted.
    expect(server.count("chatbots", "id = ? AND deleted_at IS NOT NULL", id)).toBe(1);
  });

  it("ingests a text document to `succeeded`, lists it with its chunks, finds it in search, and removes it", async () => {
    const { api, alice, runtime } = server;
    const text = "Parcels to Norway take four working days. Returns are free within thirty days of delivery.";
    const queued = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/documents`, { title: "Shipping policy", text });
    expect(queued.status).toBe(202);
    expect(queued.json).toEqual({
      id: expect.stringMatching(UUID),
      chatbot_id: alice.botId,
      status: "queued",
      documents_total: 1,
      documents_done: 0,
      chunks: 0,
      errors: [],
      created_at: expect.stringMatching(TIME),
      finished_at: null,
    });
    await runtime.ingestions.runOnce();
    const ingestion = await api(alice.adminKey, "GET", `/v1/admin/ingestions/${queued.json.id as string}`);
    expect(ingestion.status).toBe(200);
    expect(ingestion.json).toMatchObject({ id: queued.json.id, status: "succeeded", documents_total: 1, documents_done: 1, chunks: 1, errors: [], finished_at: expect.stringMatching(TIME) });

    const documents = await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}/documents`);
    expect(documents.status).toBe(200);
    expect(documents.json).toEqual({
      data: [
        {
          id: expect.stringMatching(UUID),
          title: "Shipping policy",
          source: expect.any(String),
          type: expect.any(String),
          chunks: 1,
          bytes: expect.any(Number),
          created_at: expect.stringMatching(TIME),
          updated_at: expect.stringMatching(TIME),
        },
      ],
      next_cursor: null,
    });
    const document = documents.json.data[0] as { id: string; source: string; bytes: number };
    expect(document.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(text));
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}`)).json).toMatchObject({ documents: 1, chunks: 1 });

    const search = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/search`, { query: "How long does shipping to Norway take?" });
    expect(search.status).toBe(200);
    expect(search.json.data).toHaveLength(1);
    const hit = search.json.data[0];
    expect(hit).toEqual({
      document_id: document.id,
      title: "Shipping policy",
      source: document.source,
      text: expect.stringContaining("Norway"),
      score: expect.any(Number),
      keyword_rank: 1,
      vector_rank: 1,
    });
    expect(hit.score).toBeGreaterThan(0);

    const removed = await api(alice.adminKey, "DELETE", `/v1/admin/chatbots/${alice.botId}/documents/${document.id}`);
    expect(removed.status).toBe(204);
    expect(removed.text).toBe("");
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}/documents`)).json).toEqual({ data: [], next_cursor: null });
    expect((await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/search`, { query: "Norway" })).json).toEqual({ data: [] });
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}`)).json).toMatchObject({ documents: 0, chunks: 0 });
    const again = await api(alice.adminKey, "DELETE", `/v1/admin/chatbots/${alice.botId}/documents/${document.id}`);
    expect(again.status).toBe(404);
    expect(again.json).toEqual({ detail: "Document not found." });
  });

  it("replaces a document added again under the same title: one document, the new text only", async () => {
    const { api, bob, runtime } = server;
    const documents = `/v1/admin/chatbots/${bob.botId}/documents`;
    await api(bob.adminKey, "POST", documents, { title: "Prices", text: "The kettle costs forty euros." });
    await runtime.ingestions.runOnce();
    const first = (await api(bob.adminKey, "GET", documents)).json.data;
    const second = await api(bob.adminKey, "POST", documents, { title: "Prices", text: "The toaster costs thirty euros." });
    await runtime.ingestions.runOnce();
    expect((await api(bob.adminKey, "GET", `/v1/admin/ingestions/${second.json.id as string}`)).json).toMatchObject({ status: "succeeded", documents_done: 1, chunks: 1 });
    const listed = (await api(bob.adminKey, "GET", documents)).json.data;
    expect(listed).toEqual([expect.objectContaining({ title: "Prices", source: first[0].source, chunks: 1 })]);
    // The old text is gone: no keyword hit (the vector arm still offers the one chunk there is).
    const old = (await api(bob.adminKey, "POST", `/v1/admin/chatbots/${bob.botId}/search`, { query: "kettle" })).json.data;
    expect(old.map((hit: { text: string; keyword_rank: number | null }) => [hit.text, hit.keyword_rank])).toEqual([["The toaster costs thirty euros.", null]]);
    const found = (await api(bob.adminKey, "POST", `/v1/admin/chatbots/${bob.botId}/search`, { query: "toaster" })).json.data;
    expect(found.map((hit: { text: string }) => hit.text)).toEqual([expect.stringContaining("toaster")]);
    expect((await api(bob.adminKey, "GET", `/v1/admin/chatbots/${bob.botId}`)).json).toMatchObject({ documents: 1, chunks: 1 });
  });

  it("fails an ingestion queued for a chatbot deleted before it ran, naming why, and indexes nothing", async () => {
    const { api, alice, runtime, count } = server;
    const doomed = (await api(alice.adminKey, "POST", "/v1/admin/chatbots", { name: "Short-lived", provider: "openai", model: "gpt-test" })).json.id as string;
    const queued = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${doomed}/documents`, { title: "Orphan", text: "Nobody will read this." });
    expect((await api(alice.adminKey, "DELETE", `/v1/admin/chatbots/${doomed}`)).status).toBe(204);
    await runtime.ingestions.runOnce();
    const ingestion = await api(alice.adminKey, "GET", `/v1/admin/ingestions/${queued.json.id as string}`);
    expect(ingestion.status).toBe(200);
    expect(ingestion.json).toMatchObject({ status: "failed", documents_done: 0, chunks: 0, errors: [{ source: "Orphan", detail: "Chatbot not found." }], finished_at: expect.stringMatching(TIME) });
    expect(count("search_documents", "title = 'Orphan'")).toBe(0);
  });

  it("starts the queued ingestion by itself once the runner is started (as `parley serve` does)", async () => {
    const { api, alice, runtime } = server;
    runtime.ingestions.start();
    const queued = await api(alice.adminKey, "POST", `/v1/admin/chatbots/${alice.botId}/documents`, { title: "Opening hours", text: "The shop opens at nine." });
    expect(queued.status).toBe(202);
    await expect
      .poll(async () => (await api(alice.adminKey, "GET", `/v1/admin/ingestions/${queued.json.id as string}`)).json.status, { timeout: 10_000, interval: 20 })
      .toBe("succeeded");
    expect((await api(alice.adminKey, "GET", `/v1/admin/chatbots/${alice.botId}/documents`)).json.data.map((document: { title: string }) => document.title)).toEqual(["Opening hours"]);
  });
});
