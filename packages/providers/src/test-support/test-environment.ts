import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { Environment } from "../provider-environment.js";

/** The API key the tests use; no error text may ever contain it. */
export const TEST_API_KEY = "sk-test-DO-NOT-LEAK-4f1c2b";

/** The process environment without any provider or Parley variable, plus `extra`. */
export function testEnvironment(extra: Record<string, string> = {}): Environment {
  const environment: Record<string, string | undefined> = { ...process.env };
  for (const name of Object.keys(environment)) {
    if (/^(OPENAI|ANTHROPIC|OLLAMA|PARLEY)_/.test(name)) delete environment[name];
  }
  return { ...environment, ...extra };
}

/** An origin on 127.0.0.1 where nothing listens: a port taken from the OS, then released. */
export async function closedOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A fetch that counts its calls, to see retries against a port that records nothing. */
export function countingFetch(): { fetch: typeof globalThis.fetch; readonly calls: number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls += 1;
      return globalThis.fetch(input, init);
    },
    get calls() {
      return calls;
    },
  };
}

/** Settings that keep retry tests fast: backoff of a few milliseconds. */
export const FAST_RETRIES = { retryBaseDelayMs: 1, retryMaxDelayMs: 4 } as const;
