import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { isPublicAddress } from "./is-public-address.js";
import { createPublicLookup, NonPublicAddressError, type LookupFunction } from "./public-lookup.js";

/** Limits and identity of every fetch (docs/design.md §12). */
export interface FetcherOptions {
  /** Largest body read, in bytes; a larger one fails the fetch. */
  maxBytes: number;
  /** Time for one fetch, redirects and body included, in milliseconds. */
  timeoutMs: number;
  /** Redirects followed before giving up. */
  maxRedirects: number;
  userAgent: string;
  /** When false, hosts that are (or resolve to) non-public addresses are refused. */
  allowPrivateUrls: boolean;
  /** DNS lookup, replaceable in tests; defaults to `dns.lookup`. */
  lookup?: LookupFunction;
  /** Which addresses count as public; defaults to `isPublicAddress`. */
  isPublicAddress?: (address: string) => boolean;
}

/** A fetched body with the URL it finally came from (after redirects). */
export interface FetchedResource {
  url: string;
  contentType: string | null;
  body: Buffer;
}

/** A fetch that failed, with a detail fit to show the operator (a per-document error). */
export class FetchError extends Error {
  constructor(
    readonly url: string,
    detail: string,
    readonly status?: number,
  ) {
    super(detail);
    this.name = "FetchError";
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** The socket errors an operator meets most, in words; the code follows in parentheses. */
const SOCKET_ERRORS: Record<string, string> = {
  ECONNREFUSED: "the connection was refused",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host could not be reached",
  ENETUNREACH: "the network could not be reached",
};

/** Fetches URLs over node:http(s) with the limits above, checking every address it connects to. */
export function createFetcher(options: FetcherOptions) {
  const isPublic = options.isPublicAddress ?? isPublicAddress;
  const lookup = options.allowPrivateUrls ? options.lookup : createPublicLookup(options.lookup, isPublic);
  // Keep-alive agents of their own, so a crawl reuses connections and closing them ends it.
  const agents = { http: new HttpAgent({ keepAlive: true, maxSockets: 4 }), https: new HttpsAgent({ keepAlive: true, maxSockets: 4 }) };

  /**
   * One GET, following redirects; rejects with a FetchError. `beforeRedirect` is awaited for each
   * redirect's target before it is requested (robots.txt of the target's own site): a rejection
   * ends the fetch with it.
   */
  async function fetch(url: string, signal: AbortSignal, maxBytes = options.maxBytes, beforeRedirect?: (target: string) => Promise<void>): Promise<FetchedResource> {
    const deadline = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
    let current = url;
    for (let redirects = 0; ; redirects += 1) {
      const response = await open(current, deadline);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.resume();
        if (redirects >= options.maxRedirects) throw new FetchError(url, `${url} redirects more than ${options.maxRedirects} times.`);
        current = new URL(location, current).href;
        await beforeRedirect?.(current);
        continue;
      }
      const status = response.statusCode ?? 0;
      if (status < 200 || status > 299) {
        response.resume();
        throw new FetchError(current, `${current} answered HTTP ${status}.`, status);
      }
      const body = await readBody(response, current, maxBytes, deadline);
      return { url: current, contentType: response.headers["content-type"] ?? null, body };
    }
  }

  function open(url: string, signal: AbortSignal): Promise<IncomingMessage> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return Promise.reject(new FetchError(url, `${url} is not a valid URL.`));
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return Promise.reject(new FetchError(url, `${url} is not an http or https URL.`));
    }
    if (target.username || target.password) return Promise.reject(new FetchError(url, `${url} carries credentials; they are not sent.`));
    const host = target.hostname.replace(/^\[|\]$/g, "");
    // An address literal is never looked up, so it is checked here rather than in `lookup`.
    if (!options.allowPrivateUrls && isIP(host) !== 0 && !isPublic(host)) {
      return Promise.reject(refused(url, new NonPublicAddressError(host, host)));
    }
    const send = target.protocol === "https:" ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const request = send(target, {
        agent: target.protocol === "https:" ? agents.https : agents.http,
        headers: { "user-agent": options.userAgent, accept: "text/html,application/xhtml+xml,application/xml,application/pdf,*/*;q=0.8", "accept-encoding": "identity" },
        signal,
        ...(lookup ? { lookup } : {}),
      });
      request.on("response", resolve);
      request.on("error", (error) => reject(describe(url, error, signal)));
      request.end();
    });
  }

  function describe(url: string, error: Error, signal: AbortSignal): FetchError {
    if (error instanceof NonPublicAddressError) return refused(url, error);
    if (signal.aborted) {
      const reason = signal.reason as Error | undefined;
      if (reason?.name === "TimeoutError") return new FetchError(url, `${url} did not answer within ${options.timeoutMs / 1000} s.`);
      return new FetchError(url, `Fetching ${url} was cancelled.`);
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new FetchError(url, `${new URL(url).hostname} could not be resolved.`);
    const words = code === undefined ? undefined : SOCKET_ERRORS[code];
    return new FetchError(url, `${url} could not be fetched: ${words ? `${words} (${code})` : (code ?? error.message)}.`);
  }

  function refused(url: string, error: NonPublicAddressError): FetchError {
    return new FetchError(url, `Refused to fetch ${url}: ${error.message}.`);
  }

  async function readBody(response: IncomingMessage, url: string, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
    const tooLarge = () => new FetchError(url, `${url} is larger than ${formatBytes(maxBytes)}.`);
    const declared = Number(response.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    const parts: Buffer[] = [];
    let size = 0;
    try {
      for await (const part of response as AsyncIterable<Buffer>) {
        size += part.length;
        // Stop reading as soon as the limit is passed: a huge page never sits whole in memory.
        if (size > maxBytes) {
          response.destroy();
          throw tooLarge();
        }
        parts.push(part);
      }
    } catch (error) {
      if (error instanceof FetchError) throw error;
      throw describe(url, error as Error, signal);
    }
    return Buffer.concat(parts);
  }

  /**
   * Rejects (with the URL's own error) when its host is not public, before anything is fetched
   * for it, robots.txt included. The connection itself is checked again at connect time.
   */
  async function assertPublic(url: string): Promise<void> {
    if (options.allowPrivateUrls) return;
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) !== 0) {
      if (!isPublic(host)) throw refused(url, new NonPublicAddressError(host, host));
      return;
    }
    const check = lookup!;
    await new Promise<void>((resolve, reject) =>
      check(host, { all: true }, (error) => (error ? reject(describe(url, error, new AbortController().signal)) : resolve())),
    );
  }

  return {
    fetch,
    assertPublic,
    /** Closes the kept-alive connections. */
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}

/** Type of `createFetcher`'s result. */
export type Fetcher = ReturnType<typeof createFetcher>;

/** "2 MiB", "512 KiB": a byte limit as the operator set it. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
