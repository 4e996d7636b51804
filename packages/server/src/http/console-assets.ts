import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, extname, join, relative, sep } from "node:path";
import { brotliCompressSync, constants as zlibConstants, gzipSync } from "node:zlib";

/**
 * The headers of every console response (docs/design.md §11): a strict CSP (no inline script or
 * style, nothing from another origin, no framing, and X-Frame-Options for browsers that predate
 * `frame-ancestors`), no MIME sniffing, no referrer.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

const COMPRESSIBLE = new Set([".html", ".js", ".css", ".svg", ".json", ".map", ".txt"]);

/** One file of the console's (or the widget's) build, held in memory with its compressed forms. */
export interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  brotli: Buffer | undefined;
  contentType: string;
  etag: string;
  cacheControl: string;
}

/** The console's URL prefix. */
export const CONSOLE_PREFIX = "/console";

/** Whether a request path belongs to the console. */
export function isConsolePath(path: string): boolean {
  return path === CONSOLE_PREFIX || path.startsWith(`${CONSOLE_PREFIX}/`);
}

/** Where `@parley/console` keeps its build, or undefined when the package cannot be found. */
export function defaultConsoleRoot(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@parley/console/package.json")), "dist");
  } catch {
    return undefined;
  }
}

/**
 * Serves the console's static build under `/console`. Every file is read once, on the first
 * console request, into a table keyed by its URL path: a request can only ever name a file of
 * that table, so no path (`..`, encoded or not, absolute, NUL) can reach outside the build.
 * Hashed assets are cached for a year; index.html is revalidated on every load.
 */
export function createConsoleAssets(options: { root: string | undefined }) {
  let table: Map<string, Asset> | undefined;

  function assets(): Map<string, Asset> {
    return (table ??= options.root ? loadAssets(options.root) : new Map());
  }

  /** Answers a console request; returns the status sent. */
  return function serveConsole(request: IncomingMessage, response: ServerResponse, path: string, extraHeaders: Record<string, string>): number {
    const method = request.method ?? "GET";
    const headers: Record<string, string> = { ...extraHeaders, ...CONSOLE_SECURITY_HEADERS };
    if (method !== "GET" && method !== "HEAD") return sendJson(response, 405, { detail: "Method not allowed." }, { ...headers, allow: "GET, HEAD" });
    const files = assets();
    if (files.size === 0) return sendJson(response, 404, { detail: "The console is not built; run npm run build." }, headers);
    // The client routes live in the hash, so /console and /console/ are the page itself.
    const name = path === CONSOLE_PREFIX || path === `${CONSOLE_PREFIX}/` ? "index.html" : path.slice(CONSOLE_PREFIX.length + 1);
    const asset = files.get(name);
    if (!asset) return sendJson(response, 404, { detail: "Not found." }, headers);
    headers["content-type"] = asset.contentType;
    headers["cache-control"] = asset.cacheControl;
    headers.etag = asset.etag;
    headers.vary = "Accept-Encoding";
    if (request.headers["if-none-match"] === asset.etag) {
      response.writeHead(304, headers);
      response.end();
      return 304;
    }
    const encoding = chooseEncoding(request.headers["accept-encoding"], asset);
    const body = encoding === "br" ? asset.brotli! : encoding === "gzip" ? asset.gzip! : asset.body;
    if (encoding) headers["content-encoding"] = encoding;
    headers["content-length"] = String(body.length);
    response.writeHead(200, headers);
    response.end(method === "HEAD" ? undefined : body);
    return 200;
  };
}

/** Reads the build folder into the table, compressing text files once. */
export function loadAssets(root: string): Map<string, Asset> {
  const table = new Map<string, Asset>();
  let files: string[];
  try {
    files = listFiles(root);
  } catch {
    return table;
  }
  for (const file of files) {
    const name = relative(root, file).split(sep).join("/");
    const extension = extname(name);
    const body = readFileSync(file);
    const compressible = COMPRESSIBLE.has(extension) && body.length > 256;
    table.set(name, {
      body,
      gzip: compressible ? gzipSync(body, { level: 9 }) : undefined,
      // Brotli quality 5: within 6% of quality 11's size on the console script, in 9 ms instead of 420 ms.
      brotli: compressible ? brotliCompressSync(body, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }) : undefined,
      contentType: CONTENT_TYPES[extension] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
      // Vite names every built asset after its content hash: a changed file is a new URL.
      cacheControl: name.startsWith("assets/") ? "public, max-age=31536000, immutable" : "no-cache",
    });
  }
  return table;
}

function listFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const path = join(folder, entry);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

/** `br` or `gzip` when the client accepts it (q > 0) and the file has that form. */
export function chooseEncoding(header: string | undefined, asset: Asset): "br" | "gzip" | undefined {
  if (!header || !asset.gzip) return undefined;
  const accepted = new Map<string, number>();
  for (const part of header.split(",")) {
    const [token, ...parameters] = part.trim().toLowerCase().split(";");
    const quality = parameters.map((parameter) => /^\s*q=([\d.]+)\s*$/.exec(parameter)?.[1]).find((value) => value !== undefined);
    if (token) accepted.set(token, quality === undefined ? 1 : Number(quality));
  }
  const allows = (name: string) => (accepted.get(name) ?? accepted.get("*") ?? 0) > 0;
  if (asset.brotli && allows("br")) return "br";
  return allows("gzip") ? "gzip" : undefined;
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string>): number {
  const payload = JSON.stringify(body);
  response.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(payload)), "cache-control": "no-store" });
  response.end(payload);
  return status;
}
