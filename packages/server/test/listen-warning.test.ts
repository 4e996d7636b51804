import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startServer } from "../src/runtime/serve.js";
import { environment } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;

beforeAll(async () => {
  context = await environment();
});

afterAll(async () => {
  await context?.cleanup();
});

/** Starts and stops a server on `host`, and returns its log lines other than the warm-up's. */
async function startupLines(host: string): Promise<Record<string, unknown>[]> {
  const logs: Record<string, unknown>[] = [];
  const running = await startServer({ runtime: openParley(loadConfig(context.env)), port: 0, host, log: (line) => logs.push(line) });
  const lines = logs.filter((line) => line.event !== "search_warmed_up");
  await running.stop();
  return lines;
}

describe("the address the server listens on", () => {
  it("warns once at start, in a JSON line, when it listens beyond loopback (0.0.0.0): keys travel in headers, TLS is needed", async () => {
    expect(await startupLines("0.0.0.0")).toEqual([
      {
        level: "warn",
        event: "listening_beyond_loopback",
        address: "0.0.0.0",
        detail:
          "The server accepts connections from other machines, and API keys travel in request headers: put it behind a reverse proxy that terminates TLS (docs/configuration.md, \"Behind TLS\").",
      },
    ]);
  });

  it("says nothing about it on loopback", async () => {
    expect(await startupLines("127.0.0.1")).toEqual([]);
    expect(await startupLines("localhost")).toEqual([]);
  });
});
