import { createHash } from "node:crypto";
import type { Parley } from "@parley/core";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest, createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestHandler } from "./create-request-handler.js";
import { frameContentSecurityPolicy } from "./widget-assets.js";

const ON = "0b6f3e0c-8a4e-4c57-9a52-3d7d3c1e2f10";
const OFF = "1c7f3e0c-8a4e-4c57-9a52-3d7d3c1e2f11";
const LOADER = `(function(){console.log(${JSON.stringify("loader ".repeat(100))})})();\n`;

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

describe("the widget's files", () => {
  let folder: string;
  let server: Server;
  let port: number;
  const origins = new Map<string, string[]>([[ON, ["https://shop.example", "http://127.0.0.1:8080", "https://bad.example; script-src *"]]]);

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), "parley-widget-"));
    mkdirSync(join(folder, "assets"), { recursive: true });
    writeFileSync(join(folder, "index.html"), '<!doctype html><script type="module" src="/widget/assets/index-AbC123.js"></script>');
    writeFileSync(join(folder, "assets", "index-AbC123.js"), LOADER);
    writeFileSync(join(folder, "widget.js"), LOADER);
    const handler = createRequestHandler({ parley: {} as Parley, log: () => undefined, widgetRoot: folder, findWidget: async (id) => origins.get(id) ?? null });
    server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  it("serves the loader at its stable URL, cached briefly, loadable from any site, gzip on request", async () => {
    const answer = await get(port, "/widget.js", { "accept-encoding": "gzip" });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("public, max-age=300");
    expect(answer.headers["cross-origin-resource-policy"]).toBe("cross-origin");
    expect(answer.headers["x-content-type-options"]).toBe("nosniff");
    expect(answer.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(answer.body).toString()).toBe(LOADER);
    const again = await get(port, "/widget.js", { "if-none-match": String(answer.headers.etag) });
    expect(again.status).toBe(304);
  });

  it("caches the frame's hashed assets for a year", async () => {
    const answer = await get(port, "/widget/assets/index-AbC123.js");
    expect(answer.status).toBe(200);
    expect(answer.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect((await get(port, "/widget/assets/missing.js")).status).toBe(404);
    expect((await get(port, "/widget/assets/../../secret")).status).toBe(404);
  });

  it("serves the frame of a chatbot with its widget on, framable only by its allowed origins", async () => {
    const answer = await get(port, `/widget/${ON}`);
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(answer.headers["cache-control"]).toBe("no-cache");
    expect(answer.headers["x-frame-options"]).toBeUndefined();
    // The malformed origin never reaches the header.
    expect(answer.headers["content-security-policy"]).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'self' https://shop.example http://127.0.0.1:8080; base-uri 'none'; form-action 'self'",
    );
    expect(frameContentSecurityPolicy([])).toContain("frame-ancestors 'self';");
    expect((await get(port, `/widget/${ON.toUpperCase()}`)).status).toBe(200);
  });

  it("answers 404 with the public routes' text for a chatbot without a public widget, and for other paths", async () => {
    for (const path of [`/widget/${OFF}`, "/widget/not-a-uuid", `/widget/${OFF}/demo`]) {
      const answer = await get(port, path);
      expect(answer.status, path).toBe(404);
      expect(JSON.parse(answer.body.toString()), path).toEqual({ detail: "Chatbot not found." });
    }
    expect((await get(port, `/widget/${ON}/other`)).status).toBe(404);
    expect((await get(port, "/widget.js", {}, "POST")).status).toBe(405);
  });

  it("serves a demo page embedding the snippet, on the server's own origin", async () => {
    const answer = await get(port, `/widget/${ON}/demo`);
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toContain(`<script src="/widget.js" data-chatbot-id="${ON}" async></script>`);
    expect(answer.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    // Its one inline style (the snippet wraps on a phone) is allowed by its hash, and only it.
    const style = /<style>([^<]*)<\/style>/.exec(answer.body.toString())?.[1];
    expect(style).toContain("overflow-wrap:anywhere");
    expect(answer.headers["content-security-policy"]).toContain(`style-src 'self' 'sha256-${createHash("sha256").update(style!).digest("base64")}';`);
  });
});
