import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeOpenAI, type FakeOpenAI } from "@parley/providers/testing";
import { loadConfig } from "../src/runtime/config.js";
import { openParley, type SqliteRuntime } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";

const SERVER_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The result of one CLI run. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: unknown;
}

/** Runs the `parley` CLI from its sources in a child process. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/run-cli.ts", ...args], {
      cwd: SERVER_ROOT,
      env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** `parley serve` in a child process: its address, what it wrote to stderr, and its exit. */
export interface ServeChild {
  url: string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
  stop(signal?: NodeJS.Signals): void;
}

/**
 * Starts `parley serve --port 0` from its sources in a child process and resolves with its
 * address once it says it listens; rejects with its stderr if it ends first, or (killing it) if
 * it has not listened within `startMs`, a guard against a hang rather than a measure.
 */
export function serveCli(env: Record<string, string | undefined>, startMs = 60_000): Promise<ServeChild> {
  const child = spawn(process.execPath, ["--conditions=source", "--import", "tsx", "test/run-cli.ts", "serve", "--port", "0"], {
    cwd: SERVER_ROOT,
    env: { PATH: process.env.PATH, ...env } as NodeJS.ProcessEnv,
  });
  let stderr = "";
  child.stdout.resume();
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return new Promise((resolve, reject) => {
    const hung = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`parley serve did not listen within ${startMs} ms: ${stderr}`));
    }, startMs);
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+) /.exec(stderr)?.[1];
      if (url === undefined) return;
      clearTimeout(hung);
      resolve({ url, stderr: () => stderr, exited, stop: (signal = "SIGTERM") => void child.kill(signal) });
    });
    void exited.then((code) => {
      clearTimeout(hung);
      reject(new Error(`parley serve ended with ${code} before it listened: ${stderr}`));
    });
  });
}

/** A temporary folder with a database path, and an environment pointing the providers at a fake OpenAI. */
export async function environment(extra: Record<string, string> = {}) {
  const folder = mkdtempSync(join(tmpdir(), "parley-server-"));
  const openai = await startFakeOpenAI();
  const env: Record<string, string> = {
    PARLEY_DB: join(folder, "parley.db"),
    OPENAI_API_KEY: "sk-test-secret-1234",
    OPENAI_BASE_URL: openai.url,
    PARLEY_LLM_TIMEOUT_MS: "2000",
    ...extra,
  };
  return {
    folder,
    env,
    openai,
    cleanup: async () => {
      await openai.close();
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

/** A running server on port 0 over the environment's database, with its log lines collected. */
export async function serve(env: Record<string, string>): Promise<{ runtime: SqliteRuntime; running: RunningServer; url: string; logs: Record<string, unknown>[] }> {
  const config = loadConfig(env);
  const runtime = openParley(config);
  const logs: Record<string, unknown>[] = [];
  const running = await startServer({ runtime, port: 0, host: "127.0.0.1", log: (line) => logs.push(line), limits: config.http, shutdownGraceMs: config.shutdownGraceMs });
  return { runtime, running, url: running.url, logs };
}

/** One HTTP call with a bearer key and a JSON body. */
export async function call(
  url: string,
  options: { method?: string; key?: string; body?: unknown; raw?: string; contentType?: string; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.raw !== undefined || options.body !== undefined) {
    body = options.raw ?? JSON.stringify(options.body);
    headers["content-type"] = options.contentType ?? "application/json";
  }
  const response = await fetch(url, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

export type { FakeOpenAI };
