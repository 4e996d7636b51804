import { readFileSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

/** A fixture file's bytes. */
export const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

/** The local test site: what it serves, and which paths were requested (with their user agents). */
export interface TestSite {
  origin: string;
  port: number;
  requests: { path: string; userAgent: string }[];
  close(): Promise<void>;
}

const page = (title: string, body: string, head = "") =>
  `<!DOCTYPE html><html><head><title>${title}</title>${head}<script>var tracking = "SCRIPT-TEXT";</script></head><body>` +
  `<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/loop-a">Loop</a> NAVIGATION-TEXT</nav>` +
  `<main><article>${body}</article></main><footer>FOOTER-TEXT Copyright Acme</footer></body></html>`;

const prose = (topic: string) =>
  `<p>${topic} This paragraph is long enough for Readability to treat the article as the main content of the page, ` +
  "with several sentences about kettles, their warranty, how to descale them and how Acme support helps customers.</p>";

/**
 * Serves a small site on 127.0.0.1 (port 0): robots.txt disallowing /private/, a sitemap index
 * with a gzip sitemap, a redirect, a loop of links, a page that never finishes, a page larger
 * than 2 MiB and a PDF linked from the home page. `extraPages` adds `/p/N` pages linked in a chain.
 */
export async function startTestSite(options: { extraPages?: number; redirects?: Record<string, string>; robotsStatus?: number } = {}): Promise<TestSite> {
  const requests: TestSite["requests"] = [];
  const held: ServerResponse[] = [];
  let origin = "";
  const routes: Record<string, (response: ServerResponse) => void> = {
    "/robots.txt": (response) =>
      options.robotsStatus
        ? send(response, "text/plain", "unavailable", options.robotsStatus)
        : send(response, "text/plain", `User-agent: *\nDisallow: /private/\n\nSitemap: ${origin}/sitemap-index.xml\n`),
    "/sitemap-index.xml": (response) =>
      send(response, "application/xml", `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${origin}/sitemap-pages.xml.gz</loc></sitemap><sitemap><loc>${origin}/sitemap-docs.xml</loc></sitemap></sitemapindex>`),
    "/sitemap-pages.xml.gz": (response) => send(response, "application/gzip", gzipSync(urlset(["/", "/about", "/private/secret", "https://elsewhere.example/x"]))),
    "/sitemap-docs.xml": (response) => send(response, "application/xml", urlset(["/docs/manual.pdf"])),
    "/": (response) =>
      send(response, "text/html", page("Acme Home", `<h1>Welcome to Acme</h1>${prose("Acme sells kettles.")}<p>Links: <a href="/about#team">about</a>, <a href="/old-page">old</a>, <a href="/private/secret">secret</a>, <a href="/docs/manual.pdf">manual</a>, <a href="/style.css">css</a>, <a href="mailto:help@acme.test">mail</a>, <a href="https://elsewhere.example/">elsewhere</a>${options.extraPages ? ', <a href="/p/1">pages</a>' : ""}.</p>`)),
    "/about": (response) => send(response, "text/html", page("About Acme", `<h1>About us</h1>${prose("Acme was founded in Leeds in 1999.")}`, `<link rel="canonical" href="${origin}/about">`)),
    "/loop-a": (response) => send(response, "text/html", page("Loop A", `${prose("Loop A points to loop B.")}<a href="/loop-b">B</a> <a href="/loop-a">self</a>`)),
    "/loop-b": (response) => send(response, "text/html", page("Loop B", `${prose("Loop B points back to loop A.")}<a href="/loop-a">A</a> <a href="/">home</a>`)),
    "/old-page": (response) => redirect(response, "/new-page"),
    "/new-page": (response) => send(response, "text/html", page("New page", prose("The new page replaced the old one."))),
    "/private/secret": (response) => send(response, "text/html", page("Secret", prose("PRIVATE-TEXT must never be read."))),
    "/docs/manual.pdf": (response) => send(response, "application/pdf", fixture("manual.pdf")),
    // Answers its headers, then never sends the body.
    "/slow": (response) => {
      response.writeHead(200, { "content-type": "text/html" });
      response.write("<html><body><p>Slow");
      held.push(response);
    },
    "/huge": (response) => {
      response.writeHead(200, { "content-type": "text/html" });
      const block = `<p>${"huge page text ".repeat(4096)}</p>`;
      for (let sent = 0; sent < 3 * 1024 * 1024; sent += block.length) response.write(block);
      response.end();
    },
  };
  const server: Server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname;
    requests.push({ path, userAgent: request.headers["user-agent"] ?? "" });
    const extra = /^\/p\/(\d+)$/.exec(path);
    if (extra && options.extraPages) {
      const index = Number(extra[1]);
      const next = index < options.extraPages ? `<a href="/p/${index + 1}">next</a>` : "";
      return send(response, "text/html", page(`Page ${index}`, `${prose(`Extra page ${index} of the crawl benchmark.`)}${next}`));
    }
    const target = options.redirects?.[path];
    if (target) return redirect(response, target);
    const route = routes[path];
    if (route) return route(response);
    send(response, "text/plain", "not found", 404);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    requests,
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function urlset(paths: string[]): string {
    const entries = paths.map((path) => `<url><loc>${path.startsWith("http") ? path : origin + path}</loc></url>`).join("");
    return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${entries}</urlset>`;
  }
}

function send(response: ServerResponse, contentType: string, body: string | Buffer, status = 200): void {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(body) });
  response.end(body);
}

function redirect(response: ServerResponse, location: string): void {
  response.writeHead(301, { location });
  response.end();
}
