import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";

/**
 * The `fetch` the provider SDKs get by default: the SDKs build and parse every request as they
 * always do, but the bytes travel over `node:http(s)` with one keep-alive agent per process
 * instead of the global fetch (undici). On a small JSON exchange the WHATWG machinery of the
 * global fetch costs about as much CPU as the rest of the SDK's request (docs/benchmarks.md,
 * "Close to the machine"). What the SDKs see is unchanged: a standard `Response`, a
 * `TypeError("fetch failed")` with the socket error as cause when the connection fails, an
 * `AbortError` when their signal fires, a body that errors when the connection breaks half-way.
 * Anything this transport does not handle itself (a body that is not text or bytes, a redirect)
 * goes to the global fetch.
 */
export const keepAliveFetch: typeof globalThis.fetch = (input, init = {}) => {
  const url = typeof input === "string" ? input : input instanceof URL ? input.href : undefined;
  const body = init.body;
  if (url === undefined || !(body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array)) {
    return globalThis.fetch(input, init);
  }
  const https = url.startsWith("https:");
  if (!https && !url.startsWith("http:")) return globalThis.fetch(input, init);
  return new Promise<Response>((resolve, reject) => {
    const signal = init.signal ?? undefined;
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const headers = plainHeaders(init.headers);
    if (body !== undefined && body !== null && headers["content-length"] === undefined) headers["content-length"] = String(Buffer.byteLength(body));
    const options = { method: init.method ?? "GET", headers, agent: https ? httpsAgent : httpAgent };
    const outgoing = (https ? httpsRequest : httpRequest)(url, options, (incoming) => {
      const status = incoming.statusCode ?? 0;
      if (REDIRECTS.has(status) && incoming.headers.location !== undefined) {
        // Redirects are rare with these APIs; the global fetch follows them as the SDKs expect.
        incoming.resume();
        release();
        globalThis.fetch(input, init).then(resolve, reject);
        return;
      }
      const responseHeaders = new Headers();
      const raw = incoming.rawHeaders;
      for (let index = 0; index + 1 < raw.length; index += 2) responseHeaders.append(raw[index]!, raw[index + 1]!);
      const answer = { status, statusText: incoming.statusMessage ?? "", headers: responseHeaders };
      if (NULL_BODY.has(status) || options.method === "HEAD") {
        incoming.resume();
        release();
        resolve(new Response(null, answer));
        return;
      }
      incoming.once("close", release);
      received = incoming;
      const decoded = decode(incoming);
      // A JSON answer is read whole, then handed over (the common case: one small object);
      // anything else (server-sent events, NDJSON) is handed over as it arrives.
      if ((incoming.headers["content-type"] ?? "").startsWith("application/json")) readWhole(decoded, answer, resolve);
      else resolve(new Response(Readable.toWeb(decoded) as ReadableStream<Uint8Array>, answer));
    });
    let received: IncomingMessage | undefined;
    const onAbort = () => {
      const error = abortError(signal!);
      received?.destroy(error);
      outgoing.destroy(error);
    };
    const release = () => signal?.removeEventListener("abort", onAbort);
    signal?.addEventListener("abort", onAbort, { once: true });
    outgoing.once("error", (error) => {
      release();
      reject(error.name === "AbortError" ? error : new TypeError("fetch failed", { cause: error }));
    });
    outgoing.end(body ?? undefined);
  });
};

/** Keep-alive agents: idle sockets are reused, and do not keep the process alive (Node unrefs them). */
const httpAgent = new HttpAgent({ keepAlive: true });
const httpsAgent = new HttpsAgent({ keepAlive: true });

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

/** The request's headers as the plain object `node:http` takes (names lowercased, as `Headers` gives them). */
function plainHeaders(headers: RequestInit["headers"]): Record<string, string> {
  const plain: Record<string, string> = {};
  if (headers === undefined) return plain;
  if (headers instanceof Headers) {
    headers.forEach((value, name) => (plain[name] = value));
    return plain;
  }
  // Any other form through Headers, which checks and lowercases names as the global fetch does.
  new Headers(headers).forEach((value, name) => (plain[name] = value));
  return plain;
}

/**
 * Resolves with the whole body once it has arrived. A connection that breaks half-way still
 * resolves, with a body that gives what came and then fails, as the global fetch's would.
 */
function readWhole(body: Readable, init: ResponseInit, resolve: (response: Response) => void): void {
  const chunks: Buffer[] = [];
  let settled = false;
  const fail = (error: Error) => {
    if (settled) return;
    settled = true;
    resolve(new Response(failingStream(chunks, error), init));
  };
  body.on("data", (chunk: Buffer) => chunks.push(chunk));
  body.once("end", () => {
    if (settled) return;
    settled = true;
    resolve(new Response(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), init));
  });
  body.once("error", fail);
  // A connection closed before the end without an error event is a broken body too.
  body.once("close", () => fail(new Error("The connection closed before the body ended.")));
}

/** A body that gives `chunks` and then fails, as the global fetch's does after a broken connection. */
function failingStream(chunks: Buffer[], error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.error(error.name === "AbortError" ? error : new TypeError("terminated", { cause: error }));
    },
  });
}

/** The body without its content coding (the global fetch decodes gzip, deflate and br too). */
function decode(incoming: IncomingMessage): Readable {
  const coding = (incoming.headers["content-encoding"] ?? "").trim().toLowerCase();
  const decoder = coding === "gzip" || coding === "x-gzip" ? createGunzip() : coding === "deflate" ? createInflate() : coding === "br" ? createBrotliDecompress() : undefined;
  if (decoder === undefined) return incoming;
  incoming.once("error", (error) => decoder.destroy(error));
  incoming.once("close", () => {
    if (!incoming.complete) decoder.destroy(new Error("The connection closed before the body ended."));
  });
  return incoming.pipe(decoder);
}

/** What the global fetch rejects with when its signal fires: the signal's reason, else an AbortError. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return new DOMException("This operation was aborted", "AbortError");
}
