import { lookup as dnsLookup } from "node:dns/promises";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { connect as netConnect, isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { isPublicAddress } from "@parley/knowledge";

/** One connection to open: the address checked, and the name and port it stands for. */
export interface ConnectTarget {
  address: string;
  port: number;
  /** The URL's host name: the TLS server name and the `Host` header. */
  hostname: string;
  tls: boolean;
}

/** What the pinned transport runs on; tests inject both, and never dial anything but loopback. */
export interface PinnedFetchOptions {
  /** Every address a name resolves to (default `dns.lookup` with `all`). */
  resolve?: (hostname: string) => Promise<{ address: string; family: number }[]>;
  /** Opens the socket to the checked address (default `net.connect`, or `tls.connect` with the name for SNI and the certificate). */
  connect?: (target: ConnectTarget) => Socket;
  isPublic?: (address: string) => boolean;
}

/** A refused address, as a fetch failure whose `cause.code` names it (`request failed: ENONPUBLIC` in the delivery). */
class NonPublicTargetError extends TypeError {
  constructor() {
    super("fetch failed", { cause: Object.assign(new Error("the address is not public"), { code: "ENONPUBLIC" }) });
  }
}

/**
 * A `fetch` for webhooks of the operator API (docs/design.md §9) that connects only to the
 * address it checked: it resolves the host once, refuses the request when any address is not
 * public, and opens the socket to that very address (the name kept for TLS and `Host`), so a
 * name that answers public to the check and 127.0.0.1 to the connection reaches nothing. Each
 * call resolves again: every attempt and retry is checked. Redirects are never followed (the
 * webhook POST takes none). Only `status` of the answer is given; its body is discarded.
 */
export function createPinnedFetch(options: PinnedFetchOptions = {}): typeof fetch {
  const resolve = options.resolve ?? ((hostname: string) => dnsLookup(hostname, { all: true, verbatim: true }));
  const isPublic = options.isPublic ?? isPublicAddress;
  const connect =
    options.connect ??
    ((target: ConnectTarget) =>
      target.tls
        ? tlsConnect({ host: target.address, port: target.port, servername: isIP(target.hostname) === 0 ? target.hostname : undefined, ALPNProtocols: ["http/1.1"] })
        : netConnect({ host: target.address, port: target.port }));

  return (async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = new URL(typeof input === "string" || input instanceof URL ? input : input.url);
    const tls = url.protocol === "https:";
    if (!tls && url.protocol !== "http:") throw new TypeError("fetch failed: not an http(s) URL");
    const hostname = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(hostname) !== 0 ? [{ address: hostname, family: isIP(hostname) }] : await resolve(hostname);
    if (addresses.length === 0 || addresses.some((entry) => !isPublic(entry.address))) throw new NonPublicTargetError();
    const target: ConnectTarget = { address: addresses[0]!.address, port: Number(url.port) || (tls ? 443 : 80), hostname, tls };
    const headers = { ...(init.headers as Record<string, string> | undefined), host: url.host };
    const send = tls ? httpsRequest : httpRequest;
    const status = await new Promise<number>((done, fail) => {
      const outgoing = send({
        method: init.method ?? "GET",
        path: `${url.pathname}${url.search}`,
        headers,
        // No agent: without one, node:http opens the request's socket through createConnection.
        // The host is the checked address too, should a socket ever be opened another way.
        host: target.address,
        port: target.port,
        createConnection: () => connect(target),
        ...(init.signal ? { signal: init.signal } : {}),
      });
      outgoing.on("response", (response) => {
        response.resume();
        done(response.statusCode ?? 0);
      });
      outgoing.on("error", (error) => fail(init.signal?.aborted ? init.signal.reason : new TypeError("fetch failed", { cause: error })));
      outgoing.end(typeof init.body === "string" ? init.body : undefined);
    });
    return { status, ok: status >= 200 && status < 300, body: null } as unknown as Response;
  }) as typeof fetch;
}
