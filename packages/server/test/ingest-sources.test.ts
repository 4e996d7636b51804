import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixture, startTestSite, type TestSite } from "@parley/knowledge/testing";
import { main } from "../src/cli.js";
import { environment } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let site: TestSite;
let bot = "";

/** Runs the CLI in this process with captured output; `tty` says whether stderr is a terminal. */
async function run(args: string[], options: { tty?: boolean; env?: Record<string, string> } = {}) {
  let stdout = "";
  let stderr = "";
  const sink = (write: (text: string) => void) => new Writable({ write: (chunk, _encoding, done) => (write(String(chunk)), done()) });
  const stderrStream = Object.assign(sink((text) => (stderr += text)), { isTTY: options.tty ?? false });
  const code = await main(args, { stdout: sink((text) => (stdout += text)), stderr: stderrStream, env: { ...context.env, ...options.env } });
  return { code, stdout, stderr, json: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : undefined };
}

beforeAll(async () => {
  context = await environment();
  site = await startTestSite();
  const folder = join(context.folder, "knowledge");
  mkdirSync(folder);
  writeFileSync(join(folder, "Manual.pdf"), fixture("manual.pdf"));
  writeFileSync(join(folder, "Handbook.docx"), fixture("handbook.docx"));
  writeFileSync(join(folder, "locked.pdf"), fixture("encrypted.pdf"));
  writeFileSync(join(folder, "notes.bin"), Buffer.from([0, 1, 2])); // not picked up inside a folder
  copyFileSync(join(folder, "locked.pdf"), join(context.folder, "only-locked.pdf"));
  const user = (await run(["user", "create", "--email", "sources@example.com"])).json!;
  bot = String((await run(["bot", "create", "--user", String(user.id), "--name", "Docs", "--provider", "ollama", "--model", "m"])).json!.id);
});

afterAll(async () => {
  await site?.close();
  await context?.cleanup();
});

describe("parley ingest with files and URLs", () => {
  it("reads PDF and DOCX from a folder, reports the encrypted PDF, and draws a bar on a terminal", async () => {
    const result = await run(["ingest", "--bot", bot, join(context.folder, "knowledge")], { tty: true });
    expect(result.code).toBe(0);
    expect(result.json).toEqual({
      documents: 2,
      chunks: expect.any(Number),
      errors: [{ source: join(context.folder, "knowledge", "locked.pdf"), detail: "The PDF is encrypted with a password; add a copy without the password." }],
    });
    expect(result.stderr).toMatch(/\r\[#{20}\] 3\/3 documents, \d+ chunks, 1 failed, \d+ chunks\/s \n$/);
  });

  it("crawls a site when private addresses are allowed, and refuses it otherwise, with no bar off a terminal", async () => {
    const allowed = await run(["ingest", "--bot", bot, `${site.origin}/`, "--crawl", "site", "--max-pages", "3"], { env: { PARLEY_ALLOW_PRIVATE_URLS: "true" } });
    expect(allowed.code).toBe(0);
    expect(allowed.json).toMatchObject({ documents: 3, errors: [] });
    expect(allowed.stderr).toBe("");
    const refused = await run(["ingest", "--bot", bot, `${site.origin}/`]);
    expect(refused.code).toBe(1);
    expect(refused.json).toEqual({ documents: 0, chunks: 0, errors: [{ source: `${site.origin}/`, detail: `Refused to fetch ${site.origin}/: 127.0.0.1 is not a public address (PARLEY_ALLOW_PRIVATE_URLS=true allows it).` }] });
  });

  it("exits 1 when every document failed, and 2 on a bad --crawl", async () => {
    const failed = await run(["ingest", "--bot", bot, join(context.folder, "only-locked.pdf")]);
    expect(failed.code).toBe(1);
    expect(failed.json).toMatchObject({ documents: 0, errors: [{ detail: "The PDF is encrypted with a password; add a copy without the password." }] });
    const usage = await run(["ingest", "--bot", bot, "--crawl", "deep", `${site.origin}/`]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toBe('parley ingest: --crawl must be one of page, sitemap, site (got "deep").\n');
  });
});
