import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replyWith } from "@parley/providers/testing";
import { environment, serve } from "./harness.js";
import { exchange, nodeRequest } from "./raw-http.js";

// A small connection cap so it is reached quickly, and a per-key limit the loops of 200 cannot
// reach; every value comes in through the environment, as a self-hoster would set it. The request
// timeouts stay at their defaults here: however loaded the machine, sending a 1 MiB body never
// runs into them. The slow clients get a server of their own with short ones, which a client
// that never sends the rest reaches on any machine.
const LIMITS = { PARLEY_KEY_RATE_LIMIT: "1000000", PARLEY_MAX_HEADER_BYTES: "4096", PARLEY_MAX_CONNECTIONS: "40" };
const SHORT_TIMEOUTS = { PARLEY_HEADERS_TIMEOUT_MS: "400", PARLEY_REQUEST_TIMEOUT_MS: "800" };

let context: Awaited<ReturnType<typeof environment>>;
let server: Awaited<ReturnType<typeof serve>>;
let port: number;
let key: string;
let chatPath: string;

beforeAll(async () => {
  context = await environment(LIMITS);
  server = await serve(context.env);
  port = Number(new URL(server.url).port);
  const { admin } = server.runtime.parley;
  await admin.setPlan("edges", 1_000_000);
  const user = await admin.createUser({ email: "edges@example.com", plan: "edges" });
  key = (await admin.createApiKey({ userId: user.id })).key;
  const bot = await admin.createChatbot({ userId: user.id, name: "Edges", provider: "openai", model: "gpt-test" });
  chatPath = `/v1/chatbots/${bot.id}/chat`;
});

afterAll(async () => {
  await server?.running.stop();
  await context?.cleanup();
});

const TOO_LARGE = JSON.stringify({ detail: "Request body must not exceed 1 MiB." });
const oversized = () => Buffer.from(JSON.stringify({ message: "x".repeat(1024 * 1024 + 10) }));
const head = (method: string, path: string, lines: string[]) => `${method} ${path} HTTP/1.1\r\nHost: x\r\n${lines.map((line) => `${line}\r\n`).join("")}\r\n`;

describe("a body over 1 MiB", () => {
  it("is answered 413 every time, 200 times in a row, through node's http client without Expect", async () => {
    const body = oversized();
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const answer = await nodeRequest(`${server.url}${chatPath}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": body.length },
        body,
      });
      expect({ attempt, ...answer }).toEqual({ attempt, status: 413, body: TOO_LARGE, error: null, continued: false });
    }
  });

  it("is answered 413 before 100 Continue, 200 times in a row, with Expect: 100-continue", async () => {
    const body = oversized();
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const answer = await nodeRequest(`${server.url}${chatPath}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": body.length, expect: "100-continue" },
        body,
        waitForContinue: true,
      });
      expect({ attempt, ...answer }).toEqual({ attempt, status: 413, body: TOO_LARGE, error: null, continued: false });
    }
  });

  it("is answered 413 on a raw socket that sends the whole body anyway, with and without Expect, 200 times each", async () => {
    const body = oversized();
    for (const expect100 of [false, true]) {
      for (let attempt = 0; attempt < 200; attempt += 1) {
        const lines = [`Authorization: Bearer ${key}`, "Content-Type: application/json", `Content-Length: ${body.length}`, ...(expect100 ? ["Expect: 100-continue"] : [])];
        const answer = await exchange(port, [head("POST", chatPath, lines), body]);
        expect({ expect100, attempt, status: answer.status, body: answer.body, error: answer.error, continued: answer.text.includes("100 Continue") }).toEqual({
          expect100,
          attempt,
          status: 413,
          body: TOO_LARGE,
          error: null,
          continued: false,
        });
        expect(answer.headers.connection).toBe("close");
      }
    }
  });

  it("is cut at the limit when chunked without a length: 413 while the client is still sending", async () => {
    const lines = [`Authorization: Bearer ${key}`, "Content-Type: application/json", "Transfer-Encoding: chunked"];
    const chunk = `${(64 * 1024).toString(16)}\r\n${"x".repeat(64 * 1024)}\r\n`;
    // 17 chunks of 64 KiB pass 1 MiB; the client then keeps sending for up to 4 MiB more.
    for (let attempt = 0; attempt < 20; attempt += 1) {
      // The client sends all 5 MiB before it reads: the server must keep draining after its answer, not reset.
      const answer = await exchange(port, [head("POST", chatPath, lines), ...Array.from({ length: 80 }, () => chunk), "0\r\n\r\n"]);
      expect({ attempt, status: answer.status, body: answer.body, error: answer.error }).toEqual({ attempt, status: 413, body: TOO_LARGE, error: null });
    }
  });
});

describe("Expect: 100-continue on a body within the limit", () => {
  it("sends 100 Continue once the handler reads the body, and then the chat's answer", async () => {
    context.openai.chat.enqueue(replyWith("after continue"));
    const body = Buffer.from(JSON.stringify({ message: "hello", session_id: "expect" }));
    const answer = await nodeRequest(`${server.url}${chatPath}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": body.length, expect: "100-continue" },
      body,
      waitForContinue: true,
    });
    expect(answer).toEqual({ status: 200, body: JSON.stringify({ response: "after continue" }), error: null, continued: true });
  });

  it("answers 401 without 100 Continue when the key is missing, keeping the order of checks", async () => {
    const body = Buffer.from(JSON.stringify({ message: "hello" }));
    const answer = await nodeRequest(`${server.url}${chatPath}`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": body.length, expect: "100-continue" },
      body,
      waitForContinue: true,
    });
    expect(answer).toEqual({ status: 401, body: JSON.stringify({ detail: "Invalid or missing API key." }), error: null, continued: false });
  });

  it("answers any other expectation 417 with a detail", async () => {
    const answer = await exchange(port, [head("GET", "/v1/chatbots", ["Expect: teapot"])], { endAfterAnswer: true });
    expect(answer).toMatchObject({ status: 417, body: JSON.stringify({ detail: "Only the expectation 100-continue is supported." }) });
  });
});

describe("slow clients", () => {
  let slowContext: Awaited<ReturnType<typeof environment>>;
  let slowServer: Awaited<ReturnType<typeof serve>>;
  let slowPort: number;
  beforeAll(async () => {
    slowContext = await environment({ ...LIMITS, ...SHORT_TIMEOUTS });
    slowServer = await serve(slowContext.env);
    slowPort = Number(new URL(slowServer.url).port);
  });
  const slowChat = async () => {
    const { admin } = slowServer.runtime.parley;
    const user = await admin.createUser({ email: "slow@example.com" });
    const bot = await admin.createChatbot({ userId: user.id, name: "Slow", provider: "openai", model: "gpt-test" });
    return { key: (await admin.createApiKey({ userId: user.id })).key, path: `/v1/chatbots/${bot.id}/chat` };
  };
  const countSlowUserMessages = () => (slowServer.runtime.database.prepare("SELECT count(*) AS n FROM messages WHERE role = 'user'").get() as { n: number }).n;
  afterAll(async () => {
    await slowServer?.running.stop();
    await slowContext?.cleanup();
  });

  it("answers 408 with a detail when the headers do not arrive in time (slowloris)", async () => {
    const answer = await exchange(slowPort, ["GET /v1/chatbots HTTP/1.1\r\nHost: x\r\n", "X-Slow: 1\r\n"]);
    expect(answer).toMatchObject({ status: 408, body: JSON.stringify({ detail: "The request was not received in time." }), error: null });
  });

  it("answers 408 when the body does not arrive in time, and the chat stores nothing", async () => {
    const chat = await slowChat();
    const before = countSlowUserMessages();
    const lines = [`Authorization: Bearer ${chat.key}`, "Content-Type: application/json", "Content-Length: 100"];
    const answer = await exchange(slowPort, [head("POST", chat.path, lines), `{"message":"slow`]);
    expect(answer).toMatchObject({ status: 408, body: JSON.stringify({ detail: "The request was not received in time." }), error: null });
    expect(countSlowUserMessages()).toBe(before);
  });
});

describe("what Node's parser refuses is answered with a detail", () => {
  const cases: Array<[string, string | Buffer, number, string]> = [
    ["headers over the cap", head("GET", "/v1/chatbots", [`X-Big: ${"a".repeat(8_000)}`]), 431, "Request headers are too large."],
    ["bad chunking", `${head("POST", "/v1/chatbots", ["Transfer-Encoding: chunked"])}zz\r\nhello\r\n0\r\n\r\n`, 400, "Malformed HTTP request."],
    ["a control byte in a header", Buffer.from(`GET /v1/chatbots HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n`, "latin1"), 400, "Malformed HTTP request."],
    ["both Content-Length and chunked", head("POST", "/v1/chatbots", ["Content-Length: 5", "Transfer-Encoding: chunked"]), 400, "Malformed HTTP request."],
    ["a method the parser does not know", head("FROB", "/v1/chatbots", []), 501, "Method not implemented."],
    ["a method in lower case", head("get", "/v1/chatbots", []), 501, "Method not implemented."],
    ["no Host header", "GET /v1/chatbots HTTP/1.1\r\n\r\n", 400, "The Host header is required."],
    ["not HTTP at all (a TLS hello)", Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]), 400, "Malformed HTTP request."],
  ];
  it.each(cases)("%s", async (_name, bytes, status, detail) => {
    const answer = await exchange(port, [bytes]);
    expect(answer).toMatchObject({ status, body: JSON.stringify({ detail }), error: null });
    expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  });
});

describe("HEAD, OPTIONS and odd methods", () => {
  it("answers HEAD 405 with Allow and no body, and the connection stays usable", async () => {
    const answer = await exchange(port, [head("HEAD", "/v1/chatbots", []), head("GET", "/healthz", ["Connection: close"])]);
    expect(answer.text).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(answer.text).toMatch(/\r\nallow: GET\r\n/i);
    // The next answer follows the 405's head directly: no body was sent for HEAD.
    expect(answer.text).toMatch(/\r\n\r\nHTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"status":"ok"\}$/);
  });

  it.each(["OPTIONS", "DELETE", "PROPFIND", "TRACE"])("answers %s with a chunked body 405 with a detail", async (method) => {
    const answer = await exchange(port, [head(method, chatPath, ["Transfer-Encoding: chunked", "Connection: close"]), "5\r\nhello\r\n0\r\n\r\n"]);
    expect(answer).toMatchObject({ status: 405, body: JSON.stringify({ detail: "Method not allowed." }), error: null });
    expect(answer.headers.allow).toBe("POST");
  });

  it("answers CONNECT 405 with a detail instead of dropping the connection", async () => {
    const answer = await exchange(port, ["CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"]);
    expect(answer).toMatchObject({ status: 405, body: JSON.stringify({ detail: "Method not allowed." }), error: null });
  });
});

describe("the connection cap", () => {
  it("answers 503 with Retry-After on connections past PARLEY_MAX_CONNECTIONS, and serves again once they close", async () => {
    const held = await Promise.all(
      Array.from({ length: 40 }, () => new Promise<Socket>((resolve) => {
        const socket = connect({ port, host: "127.0.0.1" }, () => resolve(socket));
      })),
    );
    const refused = await exchange(port, [head("GET", "/healthz", [])]);
    expect(refused).toMatchObject({ status: 503, body: JSON.stringify({ detail: "Too many open connections; try again shortly." }), error: null });
    expect(refused.headers["retry-after"]).toBe("1");
    await Promise.all(held.map((socket) => new Promise((closed) => socket.once("close", closed).end())));
    const served = await exchange(port, [head("GET", "/healthz", ["Connection: close"])]);
    expect(served).toMatchObject({ status: 200, body: JSON.stringify({ status: "ok" }) });
  });
});
