import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { call, environment } from "./harness.js";

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe("the server's mark of each request's start (the SQLite read cache's one check a request)", () => {
  it("marks every request before its reads, and a key revoked on another connection is refused at the next request", async () => {
    const context = await environment();
    const runtime = openParley(loadConfig(context.env), { log: () => {} });
    const marks: string[] = [];
    const requestStarted = runtime.requestStarted!;
    runtime.requestStarted = () => {
      marks.push("start");
      requestStarted();
    };
    const authenticate = runtime.parley.authenticate;
    runtime.parley.authenticate = (apiKey) => (marks.push("authenticate"), authenticate(apiKey));
    const running: RunningServer = await startServer({ runtime, port: 0, host: "127.0.0.1", log: () => {} });
    cleanup = async () => {
      await running.stop();
      await context.cleanup();
    };
    const user = await runtime.parley.admin.createUser({ email: "marks@example.com" });
    const { apiKey, key } = await runtime.parley.admin.createApiKey({ userId: user.id });
    expect((await call(`${running.url}/healthz`)).status).toBe(200);
    expect((await call(`${running.url}/v1/chatbots`, { key })).status).toBe(200);
    expect(marks).toEqual(["start", "start", "authenticate"]);
    // Revoked on a second connection to the file, as `parley key revoke` does from its own process.
    const other = openParley(loadConfig(context.env), { log: () => {} });
    await other.parley.admin.revokeApiKey(apiKey.id);
    other.close();
    expect((await call(`${running.url}/v1/chatbots`, { key })).status).toBe(401);
  });
});
