import type { Section } from "@parley/core";
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import { htmlToSections } from "./html-to-sections.js";

/** What a page gives: its readable content, title, canonical address and the links on it. */
export interface HtmlPage {
  title: string | null;
  /** The page's canonical URL when it names one on the same host, else null. */
  canonicalUrl: string | null;
  sections: Section[];
  /** Every http(s) link on the page, absolute, without fragments, in order, once each. */
  links: string[];
}

/** The parts of linkedom's DOM this reader queries. */
interface QueryRoot {
  querySelector(selector: string): DomElement | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}
interface DomElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  remove(): void;
}

/** Boilerplate left out when Readability finds no article and the whole body is read. */
const BOILERPLATE = "nav, header, footer, aside, form, script, style, noscript, template, [role=navigation], [role=banner], [role=contentinfo], [aria-hidden=true]";
/** Readability's article is used when it holds at least this share of the page's text. */
const MIN_ARTICLE_SHARE = 0.25;

/**
 * Reads an HTML page: the main content through Mozilla's Readability (navigation, footers and
 * scripts left out), or, when Readability finds no article, the body without its boilerplate.
 * `url` (the page's address, or null for a file) resolves links and the canonical URL.
 *
 * The page is parsed once: parse time grows faster than size on deeply nested markup, so the
 * title, links and body are read from one tree before Readability (which rewrites the tree in
 * place) runs on it, and Readability hands its article back as an element, not as HTML to parse.
 */
export function readHtml(html: string, url: string | null): HtmlPage {
  const document = parseHTML(html).document as unknown as QueryRoot;
  const title = clean(document.querySelector("title")?.textContent) || clean(document.querySelector("h1")?.textContent) || null;
  const links = url ? linksOf(document, url) : [];
  const canonicalUrl = url ? canonicalOf(document, url) : null;

  // Boilerplate goes before Readability too: on a short page it keeps navigation as content.
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE))) element.remove();
  // The whole document, not only <body>: linkedom leaves a page without <html>/<body> tags bodiless.
  const bodySections = htmlToSections(document as never);
  const bodyLength = lengthOf(bodySections);

  let article: { content?: unknown } | null;
  try {
    article = readArticle(document);
  } catch {
    // Readability gives up on some malformed trees; the body without boilerplate still reads.
    article = null;
  }
  if (article?.content) {
    const sections = htmlToSections(article.content as never);
    // Readability can pick one teaser box on a page of many; then the whole body reads better.
    if (lengthOf(sections) >= bodyLength * MIN_ARTICLE_SHARE) return { title, canonicalUrl, sections, links };
  }
  return { title, canonicalUrl, sections: bodySections, links };
}

/**
 * Mozilla's Readability on a parsed page, its article handed back as an element: the one call
 * `readHtml` makes (and `bench:ingest` times). It rewrites the tree in place, and may throw.
 */
export function readArticle(document: unknown): { content?: unknown } | null {
  return new Readability(document as never, { charThreshold: 200, serializer: (element) => element }).parse();
}

function lengthOf(sections: Section[]): number {
  return sections.reduce((sum, section) => sum + section.text.length, 0);
}

function clean(text: string | null | undefined): string {
  return (text ?? "").replace(/\s+/g, " ").trim();
}

function linksOf(document: QueryRoot, base: string): string[] {
  const links = new Set<string>();
  for (const anchor of Array.from(document.querySelectorAll("a[href]"))) {
    const href = anchor.getAttribute("href") ?? "";
    const absolute = resolve(href, base);
    if (absolute) links.add(absolute);
  }
  return [...links];
}

/** A canonical link is trusted only on the page's own host: another host cannot take over a page's source. */
function canonicalOf(document: QueryRoot, url: string): string | null {
  const href = document.querySelector('link[rel~="canonical"][href]')?.getAttribute("href");
  const canonical = href ? resolve(href, url) : null;
  return canonical && new URL(canonical).host === new URL(url).host ? canonical : null;
}

/** An absolute http(s) URL without its fragment, or null. */
export function resolve(href: string, base: string): string | null {
  try {
    const target = new URL(href.trim(), base);
    if (target.protocol !== "http:" && target.protocol !== "https:") return null;
    target.hash = "";
    return target.href;
  } catch {
    return null;
  }
}
