import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { call, runCli } from "./harness.js";

const folder = mkdtempSync(join(tmpdir(), "parley-quickstart-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A port on 127.0.0.1 that nothing listens on, so the demo's Ollama is unreachable. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("the quickstart: serve --quickstart on an empty database with no provider keys", () => {
  it("creates a demo chatbot, prints a key and curl commands that work, and says Ollama is not running", async () => {
    const ollamaPort = await closedPort();
    // A console build of its own, served instead of the installed one (PARLEY_CONSOLE_DIR).
    const consoleDir = join(folder, "console");
    mkdirSync(join(consoleDir, "assets"), { recursive: true });
    writeFileSync(join(consoleDir, "index.html"), '<!doctype html><title>A console built elsewhere</title><script type="module" src="/console/assets/own.js"></script>');
    writeFileSync(join(consoleDir, "assets", "own.js"), "export {};");
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/run-cli.ts", "serve", "--quickstart", "--port", "0"], {
      cwd: fileURLToPath(new URL("..", import.meta.url)),
      env: { PATH: process.env.PATH, PARLEY_DB: join(folder, "parley.db"), OLLAMA_HOST: `http://127.0.0.1:${ollamaPort}`, PARLEY_CONSOLE_DIR: consoleDir },
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      await expect.poll(() => stderr, { timeout: 30_000, interval: 100 }).toMatch(/Ollama does not answer/);
      const key = /export PARLEY_KEY=(prl_\S+)/.exec(stderr)![1]!;
      const url = /listening on (http:\/\/\S+) /.exec(stderr)![1]!;
      expect(stderr).toContain(`curl -s ${url}/v1/chatbots -H "Authorization: Bearer $PARLEY_KEY"`);
      expect(stderr).toMatch(/answers with ollama \(model llama3\.2\) from 4 documents/);
      const list = await call(`${url}/v1/chatbots`, { key });
      expect(list.status).toBe(200);
      const [bot] = list.json as { id: string; name: string; provider: string }[];
      expect(bot).toMatchObject({ name: "Kettlebird Support", provider: "ollama" });
      // The console's admin key: printed with the console's address, and admin-scoped.
      const adminKey = /sign in with this admin key[^\n]*\n\n {2}(prl_\S+)/.exec(stderr)?.[1];
      expect(stderr).toContain(`Open the console at ${url}/console and sign in with this admin key`);
      expect((await call(`${url}/v1/admin/chatbots`, { key: adminKey })).json).toMatchObject({ data: [{ name: "Kettlebird Support" }], next_cursor: null });
      expect((await call(`${url}/v1/admin/chatbots`, { key })).status).toBe(403);
      const page = await fetch(`${url}/console/`);
      expect([page.status, await page.text()]).toEqual([200, expect.stringContaining("<title>A console built elsewhere</title>")]);
      // The demo chatbot's widget is on, shown on a demo page whose address the banner prints.
      expect(stderr).toContain(`See the demo chatbot in the chat widget, as a visitor of a website would: ${url}/widget/${bot!.id}/demo`);
      const demo = await fetch(`${url}/widget/${bot!.id}/demo`);
      expect([demo.status, await demo.text()]).toEqual([200, expect.stringContaining(`<script src="/widget.js" data-chatbot-id="${bot!.id}" async></script>`)]);
      expect((await call(`${url}/v1/widget/${bot!.id}`)).json).toMatchObject({ title: "Kettlebird Support", starter_questions: ["How long is the warranty?", "How do I descale my kettle?"], available: true });
      const chat = await call(`${url}/v1/chatbots/${bot!.id}/chat`, { key, body: { message: "How long is the warranty?" } });
      expect(chat).toMatchObject({ status: 500, json: { detail: "The language model provider failed to answer." } });

      // No lock-out: the banner names the demo user and its keys, and the recovery line it
      // prints issues an admin key that works, as does `parley user list`'s id.
      const userId = /The demo user is demo@parley\.local, id (\S+), with the keys:/.exec(stderr)![1]!;
      expect(stderr).toMatch(/\n {2}\S+ {2}console \(admin\)\n/);
      const recovery = /npm run parley -- (key create --user \S+ --scope admin)/.exec(stderr)![1]!;
      const env = { PARLEY_DB: join(folder, "parley.db") };
      const users = await runCli(["user", "list"], env);
      expect(users.json).toEqual({ users: [{ id: userId, email: "demo@parley.local", plan: "free", created_at: expect.any(String), keys: 2 }] });
      const issued = await runCli(recovery.split(" "), env);
      const recovered = (issued.json as { key: string }).key;
      expect((await call(`${url}/v1/admin/chatbots`, { key: recovered })).status).toBe(200);
      const shown = await runCli(["user", "show", "DEMO@parley.local"], env);
      expect((shown.json as { keys: { name: string; scope: string }[] }).keys.map((each) => each.scope).sort()).toEqual(["admin", "admin", "chat"]);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
    expect(stderr).toContain("Received SIGTERM");
  }, 60_000);
});
