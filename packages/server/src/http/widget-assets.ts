import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { chooseEncoding, loadAssets, sendJson, type Asset } from "./console-assets.js";

// The chat widget's files (docs/design.md §14), from `@parley/widget`'s build:
//   GET /widget.js              the loader a host page's snippet names: a stable URL, cached 5 minutes
//   GET /widget/assets/...      the frame's hashed script and styles, cached a year
//   GET /widget/{chatbot_id}    the chat frame page, framable only by the chatbot's allowed origins
//   GET /widget/{chatbot_id}/demo  a page embedding the snippet (the quickstart's demo)
// The frame and demo are 404 with the public routes' text for a chatbot that is missing, deleted
// or has its widget off, so they reveal nothing the public routes would not.

/** The loader's URL, named by every snippet: never renamed, so cached briefly. */
export const LOADER_PATH = "/widget.js";
const FRAME_PREFIX = "/widget/";
/** How long browsers and proxies may keep the loader: a new version reaches every site within it. */
const LOADER_CACHE = "public, max-age=300";
/** The public routes' answer for a chatbot without a public widget (the core's `chatbotNotFound`). */
export const WIDGET_NOT_FOUND = "Chatbot not found.";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** An origin as the widget settings store it; anything else never reaches a header. */
const ORIGIN = /^https?:\/\/[a-z0-9.-]+(?::\d{1,5})?$|^https?:\/\/\[[0-9a-f:.]+\](?::\d{1,5})?$/i;

/**
 * The frame's policy: the console's strict one (no inline script or style, nothing from another
 * origin), except that the chatbot's allowed origins (and the server itself) may frame it.
 */
export function frameContentSecurityPolicy(allowedOrigins: readonly string[]): string {
  const ancestors = ["'self'", ...allowedOrigins.filter((origin) => ORIGIN.test(origin))].join(" ");
  return `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors ${ancestors}; base-uri 'none'; form-action 'self'`;
}

/** The headers every widget file carries. */
const COMMON_HEADERS: Readonly<Record<string, string>> = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

/** Whether a request path belongs to the widget's files. */
export function isWidgetPath(path: string): boolean {
  return path === LOADER_PATH || path.startsWith(FRAME_PREFIX);
}

/** Where `@parley/widget` keeps its build, or undefined when the package cannot be found. */
export function defaultWidgetRoot(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve("@parley/widget/package.json")), "dist");
  } catch {
    return undefined;
  }
}

/** The allowed origins of a chatbot whose widget is on, or null when it has no public widget. */
export type FindWidget = (chatbotId: string) => Promise<readonly string[] | null>;

/**
 * Serves the widget's build. Like the console's, every file is read once into a table keyed by
 * its name, so a request can only ever name a file of that table.
 */
export function createWidgetAssets(options: { root: string | undefined; findWidget: FindWidget }) {
  let table: Map<string, Asset> | undefined;
  const assets = () => (table ??= options.root ? loadAssets(options.root) : new Map<string, Asset>());

  /** Answers a widget request; resolves to the status sent. */
  return async function serveWidget(request: IncomingMessage, response: ServerResponse, path: string, extraHeaders: Record<string, string>): Promise<number> {
    const method = request.method ?? "GET";
    const headers: Record<string, string> = { ...extraHeaders, ...COMMON_HEADERS };
    if (method !== "GET" && method !== "HEAD") return sendJson(response, 405, { detail: "Method not allowed." }, { ...headers, allow: "GET, HEAD" });
    const files = assets();
    if (files.size === 0) return sendJson(response, 404, { detail: "The widget is not built; run npm run build." }, headers);

    if (path === LOADER_PATH) {
      // A classic script any site may load (and a site with COEP too).
      return sendAsset(request, response, files.get("widget.js"), { ...headers, "cache-control": LOADER_CACHE, "cross-origin-resource-policy": "cross-origin" });
    }
    const rest = path.slice(FRAME_PREFIX.length);
    if (rest.startsWith("assets/")) return sendAsset(request, response, files.get(rest), headers);

    const [chatbotId, page, extra] = rest.split("/");
    if (!chatbotId || !UUID.test(chatbotId) || extra !== undefined || (page !== undefined && page !== "" && page !== "demo")) {
      return sendJson(response, 404, { detail: page === undefined || page === "" ? WIDGET_NOT_FOUND : "Not found." }, headers);
    }
    const allowedOrigins = await options.findWidget(chatbotId.toLowerCase());
    if (allowedOrigins === null) return sendJson(response, 404, { detail: WIDGET_NOT_FOUND }, headers);
    if (page === "demo") return sendDemo(request, response, chatbotId.toLowerCase(), headers);

    const frame = files.get("index.html");
    if (!frame) return sendJson(response, 404, { detail: "The widget is not built; run npm run build." }, headers);
    const policy = frameContentSecurityPolicy(allowedOrigins);
    // The policy is part of the answer: a changed list of origins is a changed page.
    const etag = `"${createHash("sha256").update(frame.etag).update(policy).digest("base64url").slice(0, 27)}"`;
    return sendAsset(request, response, { ...frame, etag }, { ...headers, "content-security-policy": policy, "cache-control": "no-cache" });
  };
}

/**
 * The demo page's one style: the snippet wraps, so on a phone the page is no wider than the
 * screen (a wider page widens a mobile browser's layout viewport and puts the launcher, fixed to
 * its corner, off the screen). Allowed by its hash, as the page's policy allows no inline style.
 */
const DEMO_STYLE = "pre{white-space:pre-wrap;overflow-wrap:anywhere}";
const DEMO_STYLE_HASH = `'sha256-${createHash("sha256").update(DEMO_STYLE).digest("base64")}'`;

/** A host page on the server's own origin that embeds the snippet, for trying the widget at once. */
function sendDemo(request: IncomingMessage, response: ServerResponse, chatbotId: string, headers: Record<string, string>): number {
  const body = Buffer.from(`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Parley widget demo</title><link rel="icon" href="data:,"><style>${DEMO_STYLE}</style></head>
<body>
<main>
<h1>Parley widget demo</h1>
<p>This page stands for your website. The chat button in the corner is the widget, added by this one line:</p>
<pre><code>&lt;script src="/widget.js" data-chatbot-id="${chatbotId}" async&gt;&lt;/script&gt;</code></pre>
<p>On your own site, use the full URL of this server in <code>src</code> and list your site's origin in the chatbot's allowed origins (console, Widget section).</p>
</main>
<script src="/widget.js" data-chatbot-id="${chatbotId}" async></script>
</body>
</html>
`);
  response.writeHead(200, {
    ...headers,
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'self'; script-src 'self'; style-src 'self' ${DEMO_STYLE_HASH}; img-src 'self' data:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
    "cache-control": "no-cache",
    "content-length": String(body.length),
  });
  response.end(request.method === "HEAD" ? undefined : body);
  return 200;
}

function sendAsset(request: IncomingMessage, response: ServerResponse, asset: Asset | undefined, headers: Record<string, string>): number {
  if (!asset) return sendJson(response, 404, { detail: "Not found." }, headers);
  const answer: Record<string, string> = { "content-type": asset.contentType, "cache-control": asset.cacheControl, ...headers, etag: asset.etag, vary: "Accept-Encoding" };
  if (request.headers["if-none-match"] === asset.etag) {
    response.writeHead(304, answer);
    response.end();
    return 304;
  }
  const encoding = chooseEncoding(request.headers["accept-encoding"], asset);
  const body = encoding === "br" ? asset.brotli! : encoding === "gzip" ? asset.gzip! : asset.body;
  if (encoding) answer["content-encoding"] = encoding;
  answer["content-length"] = String(body.length);
  response.writeHead(200, answer);
  response.end(request.method === "HEAD" ? undefined : body);
  return 200;
}
