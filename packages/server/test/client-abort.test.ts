import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../src/runtime/config.js";
import { openParley, type SqliteRuntime } from "../src/runtime/open-parley.js";
import { startServer, type RunningServer } from "../src/runtime/serve.js";
import { environment } from "./harness.js";

let context: Awaited<ReturnType<typeof environment>>;
let runtime: SqliteRuntime;
let running: RunningServer;
const logs: Record<string, unknown>[] = [];
let onLine: (line: Record<string, unknown>) => void = () => {};

beforeAll(async () => {
  context = await environment();
  runtime = openParley(loadConfig(context.env));
  running = await startServer({
    runtime,
    port: 0,
    host: "127.0.0.1",
    log: (line) => {
      logs.push(line);
      onLine(line);
    },
  });
});

afterAll(async () => {
  await running?.stop();
  await context?.cleanup();
});

/** Resolves with the access-log line of the next request the server finishes. */
function nextAccessLine(): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    onLine = (line) => {
      if (line.msg === "request") resolve(line);
    };
  });
}

/** Sends the request line, the headers and the start of a body over a raw socket, then disconnects. */
async function sendHalfABody(path: string, key: string): Promise<void> {
  const { port } = new URL(running.url);
  const socket = connect(Number(port), "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  const body = '{"message": "Where is my ord';
  const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 200\r\nX-Request-Id: abort-1\r\n\r\n`;
  await new Promise<void>((resolve, reject) => socket.write(head + body, (error) => (error ? reject(error) : resolve())));
  socket.destroy();
}

describe("a client that disconnects in the middle of its request body", () => {
  it("is logged once, at info level, with status 499 in the access log: no fault, no 500, no stack", async () => {
    const { admin } = runtime.parley;
    const user = await admin.createUser({ email: "abort@example.com" });
    const { key, apiKey } = await admin.createApiKey({ userId: user.id });
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Abort", provider: "openai", model: "gpt-test" });
    const path = `/v1/chatbots/${chatbot.id}/chat`;
    logs.length = 0;
    const accessLine = nextAccessLine();
    await sendHalfABody(path, key);
    expect(await accessLine).toEqual({
      level: "info",
      msg: "request",
      request_id: "abort-1",
      method: "POST",
      path,
      status: 499,
      duration_ms: expect.any(Number) as number,
      key_id: apiKey.id,
    });
    expect(logs).toHaveLength(1);
    // Nothing was stored: the message never arrived whole.
    expect(runtime.database.prepare("SELECT count(*) AS count FROM messages").get()).toEqual({ count: 0 });
  });
});
