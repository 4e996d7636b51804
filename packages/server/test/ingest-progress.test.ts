import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/cli.js";
import { environment } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;

/** Runs the CLI in this process with captured output; `tty` says whether stderr is a terminal. */
async function run(args: string[], tty: boolean) {
  let stdout = "";
  let stderr = "";
  const sink = (write: (text: string) => void) => new Writable({ write: (chunk, _encoding, done) => (write(String(chunk)), done()) });
  const stderrStream = Object.assign(sink((text) => (stderr += text)), { isTTY: tty });
  const code = await main(args, { stdout: sink((text) => (stdout += text)), stderr: stderrStream, env: context.env });
  return { code, stdout, stderr, json: stdout ? (JSON.parse(stdout) as Record<string, unknown>) : undefined };
}

beforeAll(async () => {
  context = await environment();
  const folder = join(context.folder, "docs");
  mkdirSync(folder);
  for (let index = 0; index < 5; index += 1) writeFileSync(join(folder, `page-${index}.md`), `# Page ${index}\n\n${"Some words about kettles. ".repeat(80)}`);
});

afterAll(async () => {
  await context?.cleanup();
});

describe("parley ingest progress", () => {
  it("shows a bar of documents, chunks and a rate on stderr when it is a terminal, and keeps stdout to the JSON result", async () => {
    const user = (await run(["user", "create", "--email", "progress@example.com"], false)).json!;
    const bot = (await run(["bot", "create", "--user", String(user.id), "--name", "Docs", "--provider", "ollama", "--model", "m"], false)).json!;
    const onTerminal = await run(["ingest", "--bot", String(bot.id), join(context.folder, "docs")], true);
    expect(onTerminal.code).toBe(0);
    expect(onTerminal.json).toMatchObject({ documents: 5, chunks: expect.any(Number) });
    expect(onTerminal.stderr).toMatch(/\r\[#{20}\] 5\/5 documents, \d+ chunks, 0 failed, \d+ chunks\/s \n$/);
    const quiet = await run(["ingest", "--bot", String(bot.id), join(context.folder, "docs")], false);
    expect(quiet.stderr).toBe("");
    expect(quiet.json).toEqual(onTerminal.json); // the same files again replace themselves
  });
});
