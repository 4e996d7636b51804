import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, startTestSite, type TestSite } from "@parley/knowledge/testing";
import { call, environment, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
let site: TestSite;
let key = "";
let bot = "";

beforeAll(async () => {
  context = await environment({ PARLEY_ALLOW_PRIVATE_URLS: "true", PARLEY_MAX_UPLOAD_BYTES: String(1024 * 1024), PARLEY_MAX_UPLOAD_REQUEST_BYTES: String(3 * 1024 * 1024) });
  server = await serve(context.env);
  site = await startTestSite();
  const { admin } = server.runtime.parley;
  const user = await admin.createUser({ email: "knowledge@example.com" });
  key = (await admin.createApiKey({ userId: user.id, scope: "admin" })).key;
  bot = (await admin.createChatbot({ userId: user.id, name: "Manuals", provider: "openai", model: "gpt-test" })).id;
});

afterAll(async () => {
  await site?.close();
  await server?.running.stop();
  await context?.cleanup();
});

const documentsUrl = () => `${server.url}/v1/admin/chatbots/${bot}/documents`;
const upload = async (...files: [string, Buffer][]) => {
  const form = new FormData();
  for (const [name, bytes] of files) form.append("files", new Blob([bytes]), name);
  const response = await fetch(documentsUrl(), { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
};
/** Uploaded files waiting in the database for their ingestion. */
const waiting = () => (server.runtime.database.prepare("SELECT count(*) AS count FROM uploads").get() as { count: number }).count;
/** Runs the queued ingestions (as the server's runner would) and reads the ingestion back. */
const finished = async (ingestionId: unknown) => {
  await server.runtime.ingestions.runOnce();
  return (await call(`${server.url}/v1/admin/ingestions/${String(ingestionId)}`, { key })).json as Record<string, unknown>;
};

describe("POST /v1/admin/chatbots/{id}/documents", () => {
  it("takes uploaded PDF and DOCX files, reads them in the background, reports the encrypted one, and removes the uploads", async () => {
    const created = await upload(["Manual.pdf", fixture("manual.pdf")], ["Handbook.txt", fixture("handbook.docx")], ["locked.pdf", fixture("encrypted.pdf")]);
    expect(created.status).toBe(202);
    expect(created.json).toMatchObject({ status: "queued", documents_done: 0, errors: [] });
    const ingestion = await finished(created.json.id);
    expect(ingestion).toMatchObject({
      status: "succeeded",
      documents_total: 3,
      documents_done: 3,
      errors: [{ source: "locked.pdf", detail: "The PDF is encrypted with a password; add a copy without the password." }],
    });
    expect(ingestion.chunks).toBeGreaterThan(5);
    expect(waiting()).toBe(0);

    // Types come from the content: the DOCX named .txt is listed as docx.
    const listed = (await call(documentsUrl(), { key })).json as { data: { source: string; type: string }[] };
    expect(listed.data.map(({ source, type }) => ({ source, type }))).toEqual(
      expect.arrayContaining([{ source: "Manual.pdf", type: "pdf" }, { source: "Handbook.txt", type: "docx" }]),
    );
    const search = await call(`${server.url}/v1/admin/chatbots/${bot}/search`, { key, body: { query: "Under which reference is the heating element warranty?" } });
    const [best] = (search.json as { data: { title: string; text: string }[] }).data;
    expect(best).toMatchObject({ title: "Manual.pdf", text: expect.stringMatching(/^\(page 3\) .*ZEPHYR-7/s) });
  });

  it("answers 413 for a file over PARLEY_MAX_UPLOAD_BYTES and keeps nothing of it", async () => {
    const tooBig = await upload(["huge.txt", Buffer.alloc(1024 * 1024 + 1, "a")]);
    expect(tooBig).toEqual({ status: 413, json: { detail: "Each uploaded file must not exceed 1 MiB." } });
    expect(waiting()).toBe(0);
  });

  it("answers 413 for files that each fit but together pass PARLEY_MAX_UPLOAD_REQUEST_BYTES, and keeps nothing of them", async () => {
    // The review's 40 files of 25 MiB (1 GB in one request), at this server's scale: 4 files of 1 MiB against 3 MiB.
    const file = Buffer.alloc(1024 * 1024, "a");
    const refused = await upload(["a.txt", file], ["b.txt", file], ["c.txt", file], ["d.txt", file]);
    expect(refused).toEqual({ status: 413, json: { detail: "An upload's files together must not exceed 3 MiB." } });
    expect(waiting()).toBe(0);
    const accepted = await upload(["a.txt", file], ["b.txt", file], ["c.txt", file]);
    expect(accepted.status).toBe(202);
    expect(await finished(accepted.json.id)).toMatchObject({ status: "succeeded", documents_done: 3 });
  });

  it("answers 404 for another chatbot id before reading the upload: the answer comes while the body is still unsent, and nothing is stored", async () => {
    // The upload's first part is sent and the rest held back: only a server that answers without
    // reading the body can answer now. One that reads it first would store the file.
    const boundary = "parley-held-upload";
    const request = httpRequest(`${server.url}/v1/admin/chatbots/00000000-0000-4000-8000-000000000000/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": `multipart/form-data; boundary=${boundary}`, "content-length": String(10 * 1024 * 1024) },
    });
    try {
      const outcome = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        request.on("error", reject);
        request.on("response", (response) => {
          let body = "";
          response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.write(`--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\n${"text ".repeat(1000)}`);
      });
      expect(outcome).toEqual({ status: 404, body: JSON.stringify({ detail: "Chatbot not found." }) });
      expect(waiting()).toBe(0);
    } finally {
      request.destroy();
    }
  });

  it("keeps an upload in the database until its ingestion reads it, and removes it with its chatbot", async () => {
    const created = await upload(["kept.txt", Buffer.from("Kept until read.")]);
    expect(created.status).toBe(202);
    expect(waiting()).toBe(1);
    expect(await finished(created.json.id)).toMatchObject({ status: "succeeded", documents_done: 1 });
    expect(waiting()).toBe(0);

    const { admin } = server.runtime.parley;
    const owner = (await admin.createUser({ email: "doomed@example.com" })).id;
    const doomedKey = (await admin.createApiKey({ userId: owner, scope: "admin" })).key;
    const doomed = (await admin.createChatbot({ userId: owner, name: "Doomed", provider: "openai", model: "gpt-test" })).id;
    const form = new FormData();
    form.append("files", new Blob(["Never read."]), "never.txt");
    const response = await fetch(`${server.url}/v1/admin/chatbots/${doomed}/documents`, { method: "POST", headers: { authorization: `Bearer ${doomedKey}` }, body: form });
    const queued = (await response.json()) as { id: string };
    expect(waiting()).toBe(1);
    expect((await call(`${server.url}/v1/admin/chatbots/${doomed}`, { key: doomedKey, method: "DELETE" })).status).toBe(204);
    expect(waiting()).toBe(0);
    await server.runtime.ingestions.runOnce();
    expect((await call(`${server.url}/v1/admin/ingestions/${queued.id}`, { key: doomedKey })).json).toMatchObject({ status: "failed" });
  });

  it("removes an upload whose ingestion ends without reading it: given up after its runs kept stopping", async () => {
    const created = await upload(["lost.txt", Buffer.from("Never read: every run of it stopped.")]);
    expect(created.status).toBe(202);
    expect(waiting()).toBe(1);
    // As if three runners had died on it (INGESTION_MAX_RUNS): the next claim gives it up unread.
    server.runtime.database.prepare("UPDATE ingestions SET attempts = 3 WHERE id = ?").run(created.json.id);
    expect(await finished(created.json.id)).toMatchObject({ status: "failed", documents_done: 0, errors: [{ detail: expect.stringContaining("the ingestion is given up") }] });
    // Nothing read it, so only the end of the ingestion can have removed it.
    expect(waiting()).toBe(0);
  });

  it("reads a URL given as JSON, crawling the local site when private URLs are allowed", async () => {
    const created = await call(documentsUrl(), { key, body: { url: `${site.origin}/`, crawl: "site", max_pages: 3 } });
    expect(created.status).toBe(202);
    expect(await finished((created.json as { id: string }).id)).toMatchObject({ status: "succeeded", documents_total: 3, documents_done: 3, errors: [] });
    const list = await call(documentsUrl(), { key });
    const sources = (list.json as { data: { source: string; type: string }[] }).data.map((document) => document.source);
    expect(sources).toEqual(expect.arrayContaining([`${site.origin}/`, `${site.origin}/about`, `${site.origin}/loop-a`]));
  });
});
