import type { Parley } from "@parley/core";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestHandler } from "./create-request-handler.js";

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
const SCRIPT = `console.log(${JSON.stringify("parley ".repeat(200))});\n`;

/** A raw GET: node's http client sends the path exactly as given (fetch would normalise `..`). */
function get(port: number, path: string, headers: Record<string, string> = {}, method = "GET") {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    const request = httpRequest({ host: "127.0.0.1", port, path, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    });
    request.on("error", reject);
    request.end();
  });
}

function listen(consoleRoot: string): Promise<Server> {
  // The console's routes never touch the core; the API routes are not exercised here.
  const server = createServer(createRequestHandler({ parley: {} as Parley, log: () => undefined, consoleRoot }));
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("the console's static files", () => {
  let folder: string;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "parley-console-"));
    const root = join(folder, "dist");
    mkdirSync(join(root, "assets"), { recursive: true });
    writeFileSync(join(root, "index.html"), '<!doctype html><script type="module" src="/console/assets/index-AbC123.js"></script>');
    writeFileSync(join(root, "assets", "index-AbC123.js"), SCRIPT);
    writeFileSync(join(folder, "secret.txt"), "TOP-SECRET");
    server = await listen(root);
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it("serves the page at /console and /console/, revalidated each time, with the strict headers", async () => {
    for (const path of ["/console", "/console/"]) {
      const answer = await get(port, path);
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
      expect(answer.headers["cache-control"]).toBe("no-cache");
      expect(answer.headers["content-security-policy"]).toBe(CSP);
      expect(answer.headers["x-content-type-options"]).toBe("nosniff");
      expect(answer.headers["x-frame-options"]).toBe("DENY");
      expect(answer.headers["referrer-policy"]).toBe("no-referrer");
      expect(answer.body.toString()).toContain("/console/assets/index-AbC123.js");
    }
  });

  it("caches hashed assets for a year and compresses them as the client accepts", async () => {
    const plain = await get(port, "/console/assets/index-AbC123.js");
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(plain.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);

    const brotli = await get(port, "/console/assets/index-AbC123.js", { "accept-encoding": "gzip, deflate, br" });
    expect(brotli.headers["content-encoding"]).toBe("br");
    expect(brotli.headers.vary).toBe("Accept-Encoding");
    expect(brotliDecompressSync(brotli.body).toString()).toBe(SCRIPT);
    expect(brotli.body.length).toBeLessThan(SCRIPT.length / 4);

    const gzip = await get(port, "/console/assets/index-AbC123.js", { "accept-encoding": "gzip, br;q=0" });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.body).toString()).toBe(SCRIPT);
  });

  it("answers 304 to a matching If-None-Match and HEAD without a body", async () => {
    const first = await get(port, "/console/");
    const again = await get(port, "/console/", { "if-none-match": String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.headers["content-security-policy"]).toBe(CSP);
    const head = await get(port, "/console/", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
  });

  it("never reaches outside the build, however the path is spelled", async () => {
    const attempts = [
      "/console/../secret.txt",
      "/console/assets/../../secret.txt",
      "/console/%2e%2e/secret.txt",
      "/console/assets/..%2f..%2fsecret.txt",
      "/console/..%5csecret.txt",
      "/console//" + join(folder, "secret.txt"),
      "/console/assets/index-AbC123.js%00.txt",
      "/console/%",
    ];
    for (const path of attempts) {
      const answer = await get(port, path);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body.toString()), path).toEqual({ detail: "Not found." });
      expect(answer.headers["content-security-policy"], path).toBe(CSP);
    }
  });

  it("refuses other methods with 405 and its Allow header", async () => {
    const answer = await get(port, "/console/", {}, "POST");
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe("GET, HEAD");
    expect(JSON.parse(answer.body.toString())).toEqual({ detail: "Method not allowed." });
  });

  it("leaves other paths to the API", async () => {
    const health = await get(port, "/healthz");
    expect(JSON.parse(health.body.toString())).toEqual({ status: "ok" });
    expect((await get(port, "/consoles")).headers["content-security-policy"]).toBeUndefined();
  });

  it("says so when the console was not built", async () => {
    const bare = await listen(join(folder, "missing"));
    const answer = await get((bare.address() as AddressInfo).port, "/console/");
    await new Promise((resolve) => bare.close(resolve));
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body.toString())).toEqual({ detail: "The console is not built; run npm run build." });
  });
});
