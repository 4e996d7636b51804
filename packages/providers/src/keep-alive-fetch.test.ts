import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import { keepAliveFetch } from "./keep-alive-fetch.js";

/** A server on 127.0.0.1 answering with `handler`; it records each request's client port. */
async function serve(handler: (request: IncomingMessage, response: ServerResponse, body: string) => void) {
  const ports: number[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    ports.push(request.socket.remotePort!);
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => handler(request, response, body));
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  closers.push(close);
  return { url, ports };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe("keepAliveFetch", () => {
  test("sends the method, headers and body, answers a standard Response, and reuses the connection", async () => {
    const seen: { method?: string; type?: string; length?: string; body?: string }[] = [];
    const { url, ports } = await serve((request, response, body) => {
      seen.push({ method: request.method, type: request.headers["content-type"], length: request.headers["content-length"], body });
      response.writeHead(201, { "content-type": "application/json", "x-request-id": "req-1" });
      response.end(JSON.stringify({ echoed: JSON.parse(body) as unknown }));
    });
    const headers = new Headers({ "Content-Type": "application/json" });
    for (let call = 0; call < 2; call += 1) {
      const response = await keepAliveFetch(`${url}/v1/chat`, { method: "POST", headers, body: '{"n":"é"}' });
      expect(response.status).toBe(201);
      expect(response.ok).toBe(true);
      expect(response.headers.get("x-request-id")).toBe("req-1");
      expect(await response.json()).toEqual({ echoed: { n: "é" } });
    }
    expect(seen).toEqual([
      { method: "POST", type: "application/json", length: "10", body: '{"n":"é"}' },
      { method: "POST", type: "application/json", length: "10", body: '{"n":"é"}' },
    ]);
    // One connection for both calls: the second request came from the same client port.
    expect(ports[1]).toBe(ports[0]);
  });

  test("streams a body that is not JSON as it arrives", async () => {
    let finish = () => {};
    const { url } = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      response.write("data: one\n\n");
      finish = () => response.end("data: two\n\n");
    });
    const response = await keepAliveFetch(`${url}/stream`, { method: "POST", body: "{}" });
    const reader = response.body!.getReader();
    // The first frame is readable before the server has written the second.
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: one\n\n");
    finish();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("data: two\n\n");
    expect((await reader.read()).done).toBe(true);
  });

  test("a JSON body cut half-way fails when read, as the global fetch's does", async () => {
    const { url } = await serve((request, response) => {
      response.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      response.write('{"choices": [');
      setImmediate(() => request.socket.destroy());
    });
    const response = await keepAliveFetch(`${url}/cut`, { method: "POST", body: "{}" });
    await expect(response.json()).rejects.toThrow(TypeError);
  });

  test("a refused connection rejects with TypeError('fetch failed') and the socket error as cause", async () => {
    const { url } = await serve(() => {});
    await closers.pop()!();
    const failure = await keepAliveFetch(`${url}/gone`, { method: "POST", body: "{}" }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TypeError);
    expect((failure as TypeError).message).toBe("fetch failed");
    expect(((failure as TypeError).cause as NodeJS.ErrnoException).code).toBe("ECONNREFUSED");
  });

  test("an aborted signal rejects with its reason, before and during the exchange", async () => {
    const { url } = await serve(() => {}); // never answers
    const early = new AbortController();
    early.abort(new DOMException("gone", "AbortError"));
    await expect(keepAliveFetch(`${url}/slow`, { signal: early.signal })).rejects.toMatchObject({ name: "AbortError" });
    const late = new AbortController();
    const pending = keepAliveFetch(`${url}/slow`, { method: "POST", body: "{}", signal: late.signal });
    setImmediate(() => late.abort());
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
  });

  test("follows a redirect and decodes a gzip body", async () => {
    const { url } = await serve((request, response) => {
      if (request.url === "/old") {
        response.writeHead(307, { location: "/new" });
        response.end();
        return;
      }
      response.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
      response.end(gzipSync(JSON.stringify({ at: request.url })));
    });
    const response = await keepAliveFetch(`${url}/old`, { method: "POST", body: "{}" });
    expect(await response.json()).toEqual({ at: "/new" });
  });
});
