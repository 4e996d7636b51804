import robotsParserModule from "robots-parser";
import { FetchError, type Fetcher } from "./create-fetcher.js";

/** What a site's robots.txt allows Parley to fetch. */
export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** The sitemaps robots.txt names. */
  sitemaps: string[];
}

// The package is CommonJS (`module.exports = function`) while its types declare an ES default export.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** robots.txt is small; a larger one is not read past this. */
const MAX_ROBOTS_BYTES = 512 * 1024;

/**
 * Reads robots.txt for each origin once, as RFC 9309 says: a missing one (4xx) allows
 * everything; one that cannot be read (5xx) disallows the whole site; and the group for
 * `userAgentToken` (or `*`) decides each URL.
 */
export function createRobotsRules(fetcher: Fetcher, userAgentToken: string, signal: AbortSignal) {
  const byOrigin = new Map<string, Promise<RobotsRules>>();

  async function load(origin: string): Promise<RobotsRules> {
    const robotsUrl = `${origin}/robots.txt`;
    try {
      const { body } = await fetcher.fetch(robotsUrl, signal, MAX_ROBOTS_BYTES);
      const robots = robotsParser(robotsUrl, body.toString("utf8"));
      return { isAllowed: (url) => robots.isAllowed(url, userAgentToken) !== false, sitemaps: robots.getSitemaps() };
    } catch (error) {
      if (error instanceof FetchError && error.status !== undefined && error.status >= 400 && error.status < 500) {
        return { isAllowed: () => true, sitemaps: [] };
      }
      if (error instanceof FetchError && error.status !== undefined) {
        throw new FetchError(robotsUrl, `${robotsUrl} answered HTTP ${error.status}, so the site is treated as disallowing crawlers.`, error.status);
      }
      throw error;
    }
  }

  /** The rules for a URL's origin; rejects with a FetchError when they cannot be known. */
  return function rulesFor(url: string): Promise<RobotsRules> {
    const origin = new URL(url).origin;
    let rules = byOrigin.get(origin);
    if (!rules) {
      rules = load(origin);
      byOrigin.set(origin, rules);
    }
    return rules;
  };
}
