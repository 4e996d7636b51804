import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildChildren, startChild, type Child } from "./crash/crash-harness.js";
import { environment } from "./harness.js";

// `parley serve` as a child process whose stdout (the access log) the test stops reading, so the
// pipe fills and the server holds lines it could not write yet. The test reads again only once
// the process has begun to exit: whatever ends it, SIGTERM or a crash, every request's line must
// then still come out.
let children: Awaited<ReturnType<typeof buildChildren>>;
let context: Awaited<ReturnType<typeof environment>>;

/** Enough requests that their lines overflow a pipe's 64 KiB buffer several times over. */
const REQUESTS = 1_500;
/** Says "exiting" on stderr as the process starts to exit; crashes on SIGUSR2. */
const PRELOAD = `--import=${fileURLToPath(new URL("./crash/serve-preload.mjs", import.meta.url))}`;

beforeAll(async () => {
  children = await buildChildren();
  context = await environment();
}, 60_000);

afterAll(async () => {
  await context?.cleanup();
  if (children) rmSync(children.folder, { recursive: true, force: true });
});

/** Starts `parley serve`, and stops reading its stdout once it listens; `lines` fills when reading resumes. */
async function serveUnread(env: Record<string, string>): Promise<Child & { url: string; lines: string[] }> {
  const lines: string[] = [];
  const child = startChild(children.cli, ["serve", "--port", "0"], env, (line) => lines.push(line));
  await expect.poll(() => child.stderr(), { timeout: 30_000, interval: 20 }).toMatch(/listening on http/);
  child.process.stdout!.pause();
  return { ...child, url: /listening on (http:\/\/\S+) /.exec(child.stderr())![1]!, lines };
}

/** Resumes reading the child's stdout once it says it is exiting (the poll's timeout only bounds a hang). */
async function readOnceExiting(server: Child): Promise<void> {
  await expect.poll(() => server.stderr(), { timeout: 60_000, interval: 20 }).toContain("exiting\n");
  server.process.stdout!.resume();
}

/** Sends the requests, ten at a time, each answered 200 before the next batch goes. */
async function askHealth(url: string, prefix: string): Promise<string[]> {
  const ids = Array.from({ length: REQUESTS }, (_, index) => `${prefix}-${index}`);
  for (let start = 0; start < ids.length; start += 10) {
    const answers = await Promise.all(
      ids.slice(start, start + 10).map((id) => fetch(`${url}/healthz`, { headers: { "x-request-id": id } })),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      await answer.arrayBuffer();
    }
  }
  return ids;
}

/** The request ids of the access lines, sorted (the ten requests of a batch finish in any order). */
function loggedIds(lines: string[]): string[] {
  const ids = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === "request").map((line) => line.request_id as string);
  return ids.sort();
}

describe("the access log when the process ends", () => {
  it("has every request's line after a SIGTERM, though its reader had stopped reading", async () => {
    const env = { ...context.env, PARLEY_DB: join(context.folder, "sigterm.db"), NODE_OPTIONS: PRELOAD };
    const server = await serveUnread(env);
    const ids = await askHealth(server.url, "term");
    server.process.kill("SIGTERM");
    await readOnceExiting(server);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(loggedIds(server.lines)).toEqual(ids.sort());
  }, 120_000);

  it("has every request's line after a crash (an uncaught exception), though its reader had stopped reading", async () => {
    const env = { ...context.env, PARLEY_DB: join(context.folder, "crash.db"), NODE_OPTIONS: PRELOAD };
    const server = await serveUnread(env);
    const ids = await askHealth(server.url, "crash");
    server.process.kill("SIGUSR2");
    await readOnceExiting(server);
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(server.stderr()).toContain("crashing on purpose");
    expect(loggedIds(server.lines)).toEqual(ids.sort());
  }, 120_000);
});
