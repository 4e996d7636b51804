import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SERVER_ROOT = fileURLToPath(new URL("../../../server/", import.meta.url));

/** A `parley serve --quickstart` child process on 127.0.0.1 and a free port, over a new database. */
export interface RunningParley {
  url: string;
  /** The demo's chat key and the console's admin key, as the banner printed them. */
  chatKey: string;
  adminKey: string;
  chatbotId: string;
  banner: string;
  stop(): Promise<void>;
}

/**
 * Starts the real CLI from its sources (as packages/server's tests do), seeded by the quickstart,
 * with the given environment (the fake provider's URL), and waits for its banner.
 */
export async function startParley(env: Record<string, string>): Promise<RunningParley> {
  const folder = mkdtempSync(join(tmpdir(), "parley-console-e2e-"));
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/run-cli.ts", "serve", "--port", "0", "--host", "127.0.0.1", "--quickstart"], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH, PARLEY_DB: join(folder, "parley.db"), ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", process.env.PARLEY_E2E_SERVER_LOG ? "inherit" : "ignore", "pipe"],
  });
  let stderr = "";
  const ready = new Promise<void>((resolve, reject) => {
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk;
      if (process.env.PARLEY_E2E_SERVER_LOG) process.stderr.write(chunk);
      if (/The demo chatbot answers/.test(stderr)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`parley serve exited with ${code}:\n${stderr}`)));
  });
  await ready;
  const url = match(stderr, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return {
    url,
    chatKey: match(stderr, /PARLEY_KEY=(prl_\S+)/),
    adminKey: match(stderr, /admin key[^\n]*\n\n\s+(prl_\S+)/),
    chatbotId: match(stderr, /\/v1\/chatbots\/([0-9a-f-]{36})\/chat/),
    banner: stderr,
    stop: () => stop(child).then(() => rmSync(folder, { recursive: true, force: true })),
  };
}

function match(text: string, pattern: RegExp): string {
  const found = pattern.exec(text)?.[1];
  if (!found) throw new Error(`The banner has no ${pattern}:\n${text}`);
  return found;
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}
