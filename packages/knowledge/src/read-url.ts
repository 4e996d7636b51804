import type { CrawlMode, KnowledgeItem } from "@parley/core";
import { FetchError, type Fetcher } from "./create-fetcher.js";
import { DocumentError } from "./document-error.js";
import type { DocumentBytes, ReadDocument } from "./read-document.js";
import { readSitemap } from "./read-sitemap.js";
import { createRobotsRules } from "./robots-rules.js";

/** What reading URLs needs: the fetcher, limits and the robots.txt user agent token. */
export interface UrlReaderOptions {
  fetcher: Fetcher;
  maxPageBytes: number;
  userAgentToken: string;
  signal: AbortSignal;
  /** Parses a fetched page or file (in a reader process: see `createDocumentReader`). */
  read: (input: DocumentBytes, signal?: AbortSignal) => Promise<ReadDocument>;
}

/** Links to these are never pages worth reading, so a crawl does not spend its pages on them. */
const NOT_DOCUMENTS = /\.(avif|bmp|css|gif|ico|jpe?g|js|json|mjs|mp3|mp4|ogg|png|rss|svg|tar|gz|tgz|wav|webm|webp|woff2?|xml|zip)$/i;

/**
 * The documents at a URL: the page alone, the pages its sitemap lists, or the pages reached by
 * following same-site links breadth-first, at most `maxPages` fetched, robots.txt honoured.
 * Each page that fails is one error item; the start URL failing is the only item.
 */
export async function* readUrl(url: string, crawl: CrawlMode, maxPages: number, options: UrlReaderOptions): AsyncGenerator<KnowledgeItem> {
  const { fetcher, signal } = options;
  const rulesFor = createRobotsRules(fetcher, options.userAgentToken, signal);
  // Every redirect's target, of a page or of a sitemap, answers to its own site's robots.txt, as if it had been linked.
  const beforeRedirect = async (target: string) => {
    await fetcher.assertPublic(target);
    if (!(await rulesFor(target)).isAllowed(target)) throw new FetchError(target, `robots.txt disallows fetching ${target}.`);
  };
  const start = startUrl(url);
  if (typeof start !== "string") return yield start;

  let queue: string[] = [start];
  if (crawl === "sitemap") {
    try {
      await fetcher.assertPublic(start);
      queue = await sitemapPages(start, maxPages, options, rulesFor, beforeRedirect);
    } catch (error) {
      return yield { source: start, error: detailOf(error) };
    }
    if (queue.length === 0) return yield { source: start, error: `The sitemap of ${start} lists no pages on its host.` };
  }
  const visited = new Set(queue);
  const sources = new Set<string>();
  // The site is where the start page lives after its redirects (http://acme.test → https://www.acme.test).
  let siteOrigin = new URL(start).origin;
  for (let fetched = 0; queue.length > 0 && fetched < maxPages && !signal.aborted; ) {
    const pageUrl = queue.shift()!;
    const isStart = pageUrl === start;
    try {
      await fetcher.assertPublic(pageUrl);
      if (!(await rulesFor(pageUrl)).isAllowed(pageUrl)) {
        // Only a page the operator named is worth an error; pages found on the way are passed over.
        if (isStart || crawl === "page") yield { source: pageUrl, error: `robots.txt disallows fetching ${pageUrl}.` };
        continue;
      }
      fetched += 1;
      const resource = await fetcher.fetch(pageUrl, signal, undefined, beforeRedirect);
      visited.add(resource.url);
      if (isStart) siteOrigin = new URL(resource.url).origin;
      // A same-site link that redirects to another site leaves the crawl there.
      else if (crawl === "site" && new URL(resource.url).origin !== siteOrigin) continue;
      const { document, type, links } = await options.read({
        bytes: resource.body,
        name: nameOf(resource.url),
        source: resource.url,
        contentType: resource.contentType,
        url: resource.url,
      }, signal);
      if (crawl === "site") queue.push(...sameSiteLinks(links, siteOrigin, visited));
      // Two addresses of one page (a redirect, a canonical link) give one document.
      if (sources.has(document.source)) continue;
      sources.add(document.source);
      yield { document, type, bytes: resource.body.length };
    } catch (error) {
      if (signal.aborted) return;
      yield { source: pageUrl, error: detailOf(error) };
    }
  }
}

function startUrl(url: string): string | KnowledgeItem {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return { source: url, error: `${url} is not an http or https URL.` };
    parsed.hash = "";
    return parsed.href;
  } catch {
    return { source: url, error: `${url} is not a valid URL.` };
  }
}

/** The pages of the sitemap at `start`, or, when `start` is no sitemap, of the one robots.txt names or /sitemap.xml. */
async function sitemapPages(
  start: string,
  maxPages: number,
  options: UrlReaderOptions,
  rulesFor: ReturnType<typeof createRobotsRules>,
  beforeRedirect: (target: string) => Promise<void>,
): Promise<string[]> {
  const { fetcher, maxPageBytes, signal } = options;
  const direct = await readSitemap(fetcher, start, maxPages, maxPageBytes, signal, beforeRedirect).catch((error: unknown) => {
    // A page that is not there may still have a site whose sitemap is.
    if (error instanceof FetchError && error.status === 404) return null;
    throw error;
  });
  if (direct !== null) return direct;
  const named = (await rulesFor(start)).sitemaps.find((sitemap) => new URL(sitemap, start).host === new URL(start).host);
  const fallback = named ?? new URL("/sitemap.xml", start).href;
  const pages = await readSitemap(fetcher, fallback, maxPages, maxPageBytes, signal, beforeRedirect).catch((error: unknown) => {
    if (error instanceof FetchError && error.status === 404) return null;
    throw error;
  });
  if (pages === null) throw new DocumentError(`No sitemap was found for ${start} (none at the URL, in robots.txt or at /sitemap.xml).`);
  return pages;
}

/** A fetched URL's name for its title: the last path segment, or the host for a site's root. */
function nameOf(url: string): string {
  const { pathname, host } = new URL(url);
  return pathname === "/" ? host : pathname;
}

function sameSiteLinks(links: string[], origin: string, visited: Set<string>): string[] {
  const found: string[] = [];
  for (const link of links) {
    const target = new URL(link);
    if (target.origin !== origin || NOT_DOCUMENTS.test(target.pathname) || visited.has(link)) continue;
    visited.add(link);
    found.push(link);
  }
  return found;
}

function detailOf(error: unknown): string {
  if (error instanceof FetchError || error instanceof DocumentError) return error.message;
  return `The page could not be read: ${(error as Error).message}`;
}
