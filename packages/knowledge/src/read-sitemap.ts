import { gunzipSync } from "node:zlib";
import { formatBytes, type Fetcher } from "./create-fetcher.js";
import { DocumentError } from "./document-error.js";

/** Sitemap files read for one ingestion at most (an index and the sitemaps it lists). */
const MAX_SITEMAP_FILES = 50;

/** A sitemap's <loc> entries: pages for a `urlset`, further sitemaps for a `sitemapindex`. */
export async function parseSitemap(body: Buffer, maxBytes: number): Promise<{ kind: "urlset" | "sitemapindex"; locations: string[] } | null> {
  let xml: Buffer = body;
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      xml = gunzipSync(body, { maxOutputLength: maxBytes });
    } catch {
      throw new DocumentError(`The gzip sitemap is damaged or larger than ${formatBytes(maxBytes)} once unpacked.`);
    }
  }
  const text = xml.toString("utf8").replace(/^\uFEFF/, "").trimStart();
  if (!text.startsWith("<")) return null;
  const { DOMParser } = await import("linkedom");
  const document = new DOMParser().parseFromString(text, "text/xml");
  const root = document.documentElement;
  const kind = root?.localName?.toLowerCase();
  if (kind !== "urlset" && kind !== "sitemapindex") return null;
  const locations = Array.from(root!.getElementsByTagName("loc"))
    .map((element) => (element.textContent ?? "").trim())
    .filter((location) => location !== "");
  return { kind, locations };
}

/**
 * The page URLs of a sitemap, following sitemap index files breadth-first, up to `maxPages`
 * pages on the sitemap's own host (the sitemaps protocol allows no others). Resolves to null
 * when `url` is not a sitemap at all, so the caller can look for one elsewhere. Each file's
 * redirects pass `beforeRedirect` first (robots.txt of the target's site).
 */
export async function readSitemap(
  fetcher: Fetcher,
  url: string,
  maxPages: number,
  maxBytes: number,
  signal: AbortSignal,
  beforeRedirect?: (target: string) => Promise<void>,
): Promise<string[] | null> {
  const host = new URL(url).host;
  const pages: string[] = [];
  const queue = [url];
  const seen = new Set(queue);
  for (let files = 0; queue.length > 0 && files < MAX_SITEMAP_FILES && pages.length < maxPages; files += 1) {
    const current = queue.shift()!;
    let sitemap: Awaited<ReturnType<typeof parseSitemap>>;
    try {
      sitemap = await parseSitemap((await fetcher.fetch(current, signal, undefined, beforeRedirect)).body, maxBytes);
    } catch (error) {
      // The sitemap asked for must be readable; one listed by an index may be gone.
      if (current === url) throw error;
      continue;
    }
    if (sitemap === null) {
      if (current === url) return null;
      continue;
    }
    for (const location of sitemap.locations) {
      const absolute = safeUrl(location, current);
      if (absolute === null || new URL(absolute).host !== host || seen.has(absolute)) continue;
      seen.add(absolute);
      if (sitemap.kind === "sitemapindex") queue.push(absolute);
      else if (pages.length < maxPages) pages.push(absolute);
    }
  }
  return pages;
}

function safeUrl(location: string, base: string): string | null {
  try {
    const target = new URL(location, base);
    return target.protocol === "http:" || target.protocol === "https:" ? target.href : null;
  } catch {
    return null;
  }
}
