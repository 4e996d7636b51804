import { execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { poisonHtml } from "@parley/knowledge/testing";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { call, environment } from "./harness.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  // What `parley serve` runs is the tsup build: build the packages this change touches, fresh.
  await promisify(execFile)("npm", ["run", "build", "-w", "@parley/core", "-w", "@parley/sqlite", "-w", "@parley/postgres", "-w", "@parley/knowledge", "-w", "@parley/server"], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  context = await environment();
}, 600_000);
afterAll(async () => {
  await context?.cleanup();
});

describe("the built server (dist) reading documents (issue 24)", () => {
  it("parses uploads in its reader processes from dist: a poison page fails alone, a text document is indexed", async () => {
    const setup = openParley(loadConfig(context.env), { log: () => {} });
    const user = await setup.parley.admin.createUser({ email: "built@example.com" });
    const key = (await setup.parley.admin.createApiKey({ userId: user.id, scope: "admin" })).key;
    const bot = (await setup.parley.admin.createChatbot({ userId: user.id, name: "Built", provider: "openai", model: "gpt-test" })).id;
    setup.close();

    const child = spawn(process.execPath, ["packages/server/bin/parley.js", "serve", "--port", "0"], { cwd: ROOT, env: { PATH: process.env.PATH, ...context.env } });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      await expect.poll(() => /listening on (http:\/\/\S+)/.exec(stderr)?.[1], { timeout: 30_000, interval: 50 }).toBeDefined();
      const url = /listening on (http:\/\/\S+)/.exec(stderr)![1]!;
      const form = new FormData();
      form.append("files", new Blob([poisonHtml()]), "poison.html");
      form.append("files", new Blob(["The built server reads this note."]), "note.txt");
      const created = await fetch(`${url}/v1/admin/chatbots/${bot}/documents`, { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form });
      expect(created.status).toBe(202);
      const { id } = (await created.json()) as { id: string };
      const finished = async () => (await call(`${url}/v1/admin/ingestions/${id}`, { key })).json as { status: string; errors: unknown[]; documents_done: number };
      await expect.poll(async () => (await finished()).status, { timeout: 120_000, interval: 200 }).toBe("succeeded");
      expect(await finished()).toMatchObject({ documents_done: 2, errors: [{ source: "poison.html", detail: "The document is too complex to read." }] });
      const documents = (await call(`${url}/v1/admin/chatbots/${bot}/documents`, { key })).json as { data: { source: string }[] };
      expect(documents.data.map((document) => document.source)).toEqual(["note.txt"]);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  }, 180_000);
});
