import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchEventLoop } from "@parley/knowledge/testing";
import { deeplyNestedHtml, manyPagePdf, poisonHtml, zipBombDocx } from "@parley/knowledge/testing";
import { call, environment, serve } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
const tenants: Record<"hostile" | "other", { adminKey: string; chatKey: string; bot: string }> = {} as never;

beforeAll(async () => {
  // The deep page would hold its reader for minutes: a shorter deadline keeps the test short.
  // Not shorter than 15 s: the DOCX bomb must be refused for its unpacked size, which a nice-19
  // reader on a saturated machine took more than 5 s to count (it then failed as too complex).
  context = await environment({ PARLEY_DOCUMENT_TIMEOUT_MS: "15000" });
  server = await serve(context.env);
  const { admin } = server.runtime.parley;
  for (const name of ["hostile", "other"] as const) {
    const user = await admin.createUser({ email: `${name}@example.com` });
    tenants[name] = {
      adminKey: (await admin.createApiKey({ userId: user.id, scope: "admin" })).key,
      chatKey: (await admin.createApiKey({ userId: user.id })).key,
      bot: (await admin.createChatbot({ userId: user.id, name: `${name} bot`, provider: "openai", model: "gpt-test" })).id,
    };
  }
  server.runtime.ingestions.start();
});

afterAll(async () => {
  await server?.running.stop();
  await context?.cleanup();
});

const upload = async (tenant: { adminKey: string; bot: string }, files: [string, Buffer][]) => {
  const form = new FormData();
  for (const [name, bytes] of files) form.append("files", new Blob([bytes]), name);
  const response = await fetch(`${server.url}/v1/admin/chatbots/${tenant.bot}/documents`, { method: "POST", headers: { authorization: `Bearer ${tenant.adminKey}` }, body: form });
  expect(response.status).toBe(202);
  return ((await response.json()) as { id: string }).id;
};
const ingestion = async (tenant: { adminKey: string }, id: string) =>
  (await call(`${server.url}/v1/admin/ingestions/${id}`, { key: tenant.adminKey })).json as { status: string; errors: { source: string; detail: string }[]; documents_done: number; finished_at: string | null };
const TOO_COMPLEX = "The document is too complex to read.";

describe("a hostile tenant's uploads (issue 24)", () => {
  it("fail alone with their reasons while /healthz, chat and another tenant's ingestion go on, and the event loop never waits 100 ms", async () => {
    const files: [string, Buffer][] = [
      ["poison.html", poisonHtml()],
      ["deep.html", deeplyNestedHtml()],
      ["catalogue.pdf", manyPagePdf(5_000)],
      ["bomb.docx", zipBombDocx(80 * 1024 * 1024)],
      ["notes.txt", Buffer.from("The hostile tenant's one good note.")],
    ];
    const watch = watchEventLoop();
    const hostile = await upload(tenants.hostile, files);
    // Another tenant adds a small document while the hostile ones are being read, and chats.
    const small = await upload(tenants.other, [["hours.txt", Buffer.from("Open nine to five.")]]);
    const health: number[] = [];
    let done = false;
    const probe = (async () => {
      // A probe every 25 ms, as a load balancer's health check would, not a busy loop of its own.
      while (!done) {
        health.push((await fetch(`${server.url}/healthz`)).status);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();
    const chat = await call(`${server.url}/v1/chatbots/${tenants.other.bot}/chat`, { key: tenants.other.chatKey, body: { message: "When are you open?", session_id: "s1" } });
    expect(chat.status).toBe(200);
    await expect.poll(async () => (await ingestion(tenants.other, small)).status, { timeout: 60_000, interval: 50 }).toBe("succeeded");
    // The other tenant's document was read while the hostile upload was still being read: it waited for no one's queue.
    expect((await ingestion(tenants.hostile, hostile)).status).toBe("running");
    await expect.poll(async () => (await ingestion(tenants.hostile, hostile)).status, { timeout: 120_000, interval: 100 }).toBe("succeeded");
    done = true;
    await probe;
    const loop = watch.stop();
    expect((await ingestion(tenants.hostile, hostile)).errors).toEqual([
      { source: "poison.html", detail: TOO_COMPLEX },
      { source: "deep.html", detail: TOO_COMPLEX },
      { source: "catalogue.pdf", detail: "The PDF has 5,000 pages, more than the 2,000 a document may have; split it and add the parts." },
      { source: "bomb.docx", detail: "The DOCX file unpacks to more than 64 MiB; it is refused." },
    ]);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((status) => status === 200)).toBe(true);
    // Parsing happens in reader processes: the server's event loop is never held by a document
    // (today's code held it 8-90 s per document). The raw worst delay also counts time this
    // loaded machine kept the process off the CPU, so the bound is on the loop's own work and
    // on the 99th percentile of the raw delay.
    expect(loop.maxBusyMs).toBeLessThan(100);
    expect(loop.p99DelayMs).toBeLessThan(100);
  }, 180_000);
});
