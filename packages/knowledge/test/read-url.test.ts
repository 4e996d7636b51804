import type { KnowledgeItem, KnowledgeRequest } from "@parley/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKnowledgeSources, type KnowledgeSourcesOptions } from "../src/index.js";
import type { LookupFunction } from "../src/public-lookup.js";
import { startTestSite, type TestSite } from "./site-server.js";

let site: TestSite;
beforeAll(async () => {
  site = await startTestSite();
});
afterAll(() => site.close());

const read = async (request: KnowledgeRequest, options: KnowledgeSourcesOptions = {}): Promise<KnowledgeItem[]> => {
  const items: KnowledgeItem[] = [];
  const sources = createKnowledgeSources({ allowPrivateUrls: true, ...options });
  for await (const item of sources.read(request, { signal: new AbortController().signal })) items.push(item);
  return items;
};
const url = (path: string, crawl: "page" | "sitemap" | "site" = "page", maxPages = 50): KnowledgeRequest => ({ kind: "url", url: site.origin + path, crawl, maxPages });
const summary = (items: KnowledgeItem[]) =>
  items.map((item) => ("error" in item ? { error: item.source.replace(site.origin, "") } : { page: item.document.source.replace(site.origin, ""), type: item.type }));

describe("one page", () => {
  it("reads the main content with its title, leaving navigation, footer and scripts out, as ParleyBot", async () => {
    const [item] = await read(url("/about"));
    if (!item || "error" in item) throw new Error(`expected a document, got ${JSON.stringify(item)}`);
    expect(item.type).toBe("html");
    expect(item.document.title).toBe("About Acme");
    expect(item.document.source).toBe(`${site.origin}/about`);
    expect(item.document.text).toContain("Acme was founded in Leeds in 1999.");
    for (const boilerplate of ["NAVIGATION-TEXT", "FOOTER-TEXT", "SCRIPT-TEXT"]) expect(item.document.text).not.toContain(boilerplate);
    expect(item.document.sections?.[0]?.label).toBe("About us");
    expect(site.requests.find((request) => request.path === "/about")?.userAgent).toBe("ParleyBot/0.1 (+https://github.com/parley)");
  });

  it("follows a redirect and names the page by where it landed", async () => {
    expect(summary(await read(url("/old-page")))).toEqual([{ page: "/new-page", type: "html" }]);
  });

  it("reads a linked PDF by its type, page by page", async () => {
    const [item] = await read(url("/docs/manual.pdf"));
    if (!item || "error" in item) throw new Error("expected a document");
    expect(item.type).toBe("pdf");
    expect(item.document.title).toBe("manual.pdf");
    expect(item.document.sections?.find((section) => section.text.includes("ZEPHYR-7"))?.label).toBe("page 3");
  });

  it("refuses a page robots.txt disallows, without fetching it", async () => {
    expect(await read(url("/private/secret"))).toEqual([{ source: `${site.origin}/private/secret`, error: `robots.txt disallows fetching ${site.origin}/private/secret.` }]);
    expect(site.requests.some((request) => request.path === "/private/secret")).toBe(false);
  });

  it("gives up on a page larger than the limit, a page that does not finish in time, and a missing page", async () => {
    expect(await read(url("/huge"))).toEqual([{ source: `${site.origin}/huge`, error: `${site.origin}/huge is larger than 2 MiB.` }]);
    expect(await read(url("/slow"), { fetchTimeoutMs: 200 })).toEqual([{ source: `${site.origin}/slow`, error: `${site.origin}/slow did not answer within 0.2 s.` }]);
    expect(await read(url("/missing"))).toEqual([{ source: `${site.origin}/missing`, error: `${site.origin}/missing answered HTTP 404.` }]);
  });

  it("says in words that a host refused the connection, at its robots.txt, which is read first", async () => {
    // A site that was just listening on 127.0.0.1 and is closed: nothing answers at its port.
    const gone = await startTestSite();
    await gone.close();
    const origin = gone.origin;
    expect(await read({ kind: "url", url: `${origin}/help`, crawl: "page", maxPages: 1 })).toEqual([
      { source: `${origin}/help`, error: `${origin}/robots.txt could not be fetched: the connection was refused (ECONNREFUSED).` },
    ]);
  });

  it("stops after the redirect limit", async () => {
    const looping = await startTestSite({ redirects: { "/a": "/b", "/b": "/a" } });
    try {
      const items = await read({ kind: "url", url: `${looping.origin}/a`, crawl: "page", maxPages: 1 }, { maxRedirects: 3 });
      expect(items).toEqual([{ source: `${looping.origin}/a`, error: `${looping.origin}/a redirects more than 3 times.` }]);
    } finally {
      await looping.close();
    }
  });
});

describe("sitemap", () => {
  it("reads the pages of a sitemap index (gzip and plain sitemaps), on its host, robots.txt honoured", async () => {
    expect(summary(await read(url("/sitemap-index.xml", "sitemap")))).toEqual([
      { page: "/", type: "html" },
      { page: "/about", type: "html" },
      { page: "/docs/manual.pdf", type: "pdf" },
    ]);
  });

  it("finds the sitemap through robots.txt when given the site's address, and stops at max_pages", async () => {
    expect(summary(await read(url("/", "sitemap", 2)))).toEqual([
      { page: "/", type: "html" },
      { page: "/about", type: "html" },
    ]);
  });
});

describe("site crawl", () => {
  it("follows same-site links breadth-first, once each, skipping disallowed and non-page links", async () => {
    const items = await read(url("/", "site", 20));
    expect(summary(items)).toEqual([
      { page: "/", type: "html" },
      { page: "/about", type: "html" },
      { page: "/loop-a", type: "html" },
      { page: "/new-page", type: "html" },
      { page: "/docs/manual.pdf", type: "pdf" },
      { page: "/loop-b", type: "html" },
    ]);
    const fetched = site.requests.map((request) => request.path);
    expect(fetched).not.toContain("/private/secret");
    expect(fetched).not.toContain("/style.css");
  });

  it("crawls the site the start URL redirects to, and does not follow a link that redirects off the site", async () => {
    const elsewhere = await startTestSite();
    const entrance = await startTestSite({ redirects: { "/": `${site.origin}/loop-a` } });
    const offsite = await startTestSite({ redirects: { "/loop-b": `${elsewhere.origin}/about` } });
    try {
      const crawled = await read({ kind: "url", url: `${entrance.origin}/`, crawl: "site", maxPages: 3 });
      // The entrance redirects to the main site's /loop-a, whose links are then followed on the main site.
      expect(summary(crawled)).toEqual([{ page: "/loop-a", type: "html" }, { page: "/", type: "html" }, { page: "/about", type: "html" }]);
      // The fourth page, /loop-b, redirects to another site: fetched, then left out.
      const left = await read({ kind: "url", url: `${offsite.origin}/loop-a`, crawl: "site", maxPages: 4 });
      expect(left.map((item) => ("error" in item ? item.error : item.document.source))).toEqual([`${offsite.origin}/loop-a`, `${offsite.origin}/`, `${offsite.origin}/about`]);
      expect(elsewhere.requests.some((request) => request.path === "/about")).toBe(true);
    } finally {
      await Promise.all([elsewhere.close(), entrance.close(), offsite.close()]);
    }
  });

  it("fetches no more than max_pages pages", async () => {
    expect(summary(await read(url("/", "site", 3)))).toEqual([
      { page: "/", type: "html" },
      { page: "/about", type: "html" },
      { page: "/loop-a", type: "html" },
    ]);
  });
});

describe("robots.txt and stopping", () => {
  it("applies robots.txt to a redirect's target on the same site, without fetching it (issue 24)", async () => {
    const redirecting = await startTestSite({ redirects: { "/go": "/private/secret" } });
    try {
      expect(await read({ kind: "url", url: `${redirecting.origin}/go`, crawl: "page", maxPages: 1 })).toEqual([
        { source: `${redirecting.origin}/go`, error: `robots.txt disallows fetching ${redirecting.origin}/private/secret.` },
      ]);
      expect(redirecting.requests.map((request) => request.path)).toEqual(["/robots.txt", "/go"]);
    } finally {
      await redirecting.close();
    }
  });

  it("applies the target site's own robots.txt to a redirect to another site, without fetching the page (issue 24)", async () => {
    // This site allows /away; the site it redirects to disallows /private/ in its own robots.txt.
    const redirecting = await startTestSite({ redirects: { "/away": `${site.origin}/private/secret` } });
    const before = site.requests.length;
    try {
      expect(await read({ kind: "url", url: `${redirecting.origin}/away`, crawl: "page", maxPages: 1 })).toEqual([
        { source: `${redirecting.origin}/away`, error: `robots.txt disallows fetching ${site.origin}/private/secret.` },
      ]);
      expect(site.requests.slice(before).map((request) => request.path).filter((path) => path !== "/robots.txt")).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  it("applies the target site's robots.txt to a sitemap's redirect too, without fetching the sitemap there (issue 24)", async () => {
    const redirecting = await startTestSite({ redirects: { "/sitemap.xml": `${site.origin}/private/sitemap.xml` } });
    const before = site.requests.length;
    try {
      expect(await read({ kind: "url", url: `${redirecting.origin}/sitemap.xml`, crawl: "sitemap", maxPages: 5 })).toEqual([
        { source: `${redirecting.origin}/sitemap.xml`, error: `robots.txt disallows fetching ${site.origin}/private/sitemap.xml.` },
      ]);
      expect(site.requests.slice(before).map((request) => request.path).filter((path) => path !== "/robots.txt")).toEqual([]);
    } finally {
      await redirecting.close();
    }
  });

  it("treats a site whose robots.txt answers 5xx as disallowed, and one without robots.txt as allowed", async () => {
    const failing = await startTestSite({ robotsStatus: 503 });
    const missing = await startTestSite({ robotsStatus: 404 });
    try {
      expect(await read({ kind: "url", url: `${failing.origin}/about`, crawl: "page", maxPages: 1 })).toEqual([
        { source: `${failing.origin}/about`, error: `${failing.origin}/robots.txt answered HTTP 503, so the site is treated as disallowing crawlers.` },
      ]);
      expect(failing.requests.map((request) => request.path)).toEqual(["/robots.txt"]);
      const [item] = await read({ kind: "url", url: `${missing.origin}/private/secret`, crawl: "page", maxPages: 1 });
      expect(item && "document" in item ? item.document.text : item).toContain("PRIVATE-TEXT");
    } finally {
      await failing.close();
      await missing.close();
    }
  });

  it("says when a site has no sitemap", async () => {
    const bare = await startTestSite({ robotsStatus: 404 });
    try {
      expect(await read({ kind: "url", url: `${bare.origin}/about`, crawl: "sitemap", maxPages: 5 })).toEqual([
        { source: `${bare.origin}/about`, error: `No sitemap was found for ${bare.origin}/about (none at the URL, in robots.txt or at /sitemap.xml).` },
      ]);
    } finally {
      await bare.close();
    }
  });

  it("stops a crawl when its signal aborts", async () => {
    const controller = new AbortController();
    const items: KnowledgeItem[] = [];
    for await (const item of createKnowledgeSources({ allowPrivateUrls: true }).read(url("/", "site", 20), { signal: controller.signal })) {
      items.push(item);
      controller.abort();
    }
    expect(summary(items)).toEqual([{ page: "/", type: "html" }]);
  });
});

describe("non-public addresses", () => {
  /** Names the tests resolve: kettle.test to this machine, as a public name pointed at loopback would. */
  const lookup: LookupFunction = (hostname, options, callback) => {
    const addresses: Record<string, string> = { "kettle.test": "127.0.0.1", "loopback.test": "127.0.0.2" };
    const address = addresses[hostname];
    if (!address) return callback(Object.assign(new Error("not found"), { code: "ENOTFOUND" }), options.all ? [] : "");
    if (options.all) return callback(null, [{ address, family: 4 }]);
    callback(null, address, 4);
  };
  const refusal = async (target: string, options: KnowledgeSourcesOptions = {}) =>
    read({ kind: "url", url: target, crawl: "page", maxPages: 1 }, { allowPrivateUrls: false, lookup, ...options });

  it("refuses loopback, private, link-local and metadata addresses, and an IPv4-mapped loopback", async () => {
    for (const [target, address] of [
      [`${site.origin}/`, "127.0.0.1"],
      ["http://10.1.2.3/", "10.1.2.3"],
      ["http://169.254.169.254/latest/meta-data/", "169.254.169.254"],
      ["http://[fd00:ec2::254]/", "fd00:ec2::254"],
      [`http://[::ffff:127.0.0.1]:${site.port}/`, "::ffff:7f00:1"],
    ] as const) {
      // URLs are normalised as WHATWG parses them: [::ffff:127.0.0.1] becomes [::ffff:7f00:1].
      const normalised = new URL(target).href;
      expect(await refusal(target)).toEqual([{ source: normalised, error: `Refused to fetch ${normalised}: ${address} is not a public address (PARLEY_ALLOW_PRIVATE_URLS=true allows it).` }]);
    }
  });

  it("refuses a name that resolves to loopback, before fetching even robots.txt", async () => {
    const before = site.requests.length;
    const target = `http://kettle.test:${site.port}/about`;
    expect(await refusal(target)).toEqual([{ source: target, error: `Refused to fetch ${target}: kettle.test resolves to 127.0.0.1, which is not a public address (PARLEY_ALLOW_PRIVATE_URLS=true allows it).` }]);
    expect(site.requests.length).toBe(before);
  });

  it("refuses a redirect that leads to loopback, checked after DNS", async () => {
    const redirecting = await startTestSite({ redirects: { "/go": `http://loopback.test:${site.port}/about` } });
    try {
      // The test treats the first site's address as public, so only the redirect's target is refused.
      const target = `${redirecting.origin}/go`;
      const items = await refusal(target, { isPublicAddress: (address) => address === "127.0.0.1" });
      expect(items).toEqual([
        { source: target, error: `Refused to fetch http://loopback.test:${site.port}/about: loopback.test resolves to 127.0.0.2, which is not a public address (PARLEY_ALLOW_PRIVATE_URLS=true allows it).` },
      ]);
      expect(redirecting.requests.map((request) => request.path)).toEqual(["/robots.txt", "/go"]);
    } finally {
      await redirecting.close();
    }
  });

  it("fetches the same local page when PARLEY_ALLOW_PRIVATE_URLS is set", async () => {
    const previous = process.env.PARLEY_ALLOW_PRIVATE_URLS;
    process.env.PARLEY_ALLOW_PRIVATE_URLS = "true";
    try {
      const items: KnowledgeItem[] = [];
      for await (const item of createKnowledgeSources({ lookup }).read({ kind: "url", url: `http://kettle.test:${site.port}/about`, crawl: "page", maxPages: 1 }, { signal: new AbortController().signal })) {
        items.push(item);
      }
      expect(items.map((item) => ("error" in item ? item.error : item.document.title))).toEqual(["About Acme"]);
    } finally {
      if (previous === undefined) delete process.env.PARLEY_ALLOW_PRIVATE_URLS;
      else process.env.PARLEY_ALLOW_PRIVATE_URLS = previous;
    }
  });
});
