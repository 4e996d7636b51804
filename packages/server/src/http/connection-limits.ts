import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { closeLingering, describeClientError, writeRawAnswer } from "./raw-answer.js";

/** The limits of the HTTP edge (docs/configuration.md, "HTTP limits"). */
export interface HttpLimits {
  /** Time a client has to send a request's headers, from its first byte. */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body. */
  requestTimeoutMs: number;
  /** Largest request head (request line and headers) the parser accepts; larger → 431. */
  maxHeaderBytes: number;
  /** Open connections served at once; the first request of each connection past it → 503. */
  maxConnections: number;
}

/** The defaults of docs/configuration.md. */
export const DEFAULT_HTTP_LIMITS: HttpLimits = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxHeaderBytes: 16_384, maxConnections: 1_000 };

type Log = (line: Record<string, unknown>) => void;

/**
 * A node:http server for `listener` with the edge's limits: header and request timeouts, a header
 * size cap, a connection cap, `Expect: 100-continue` answered only once the body is wanted, and
 * every parser refusal answered `{"detail"}` with its status (docs/design.md §4: every error body
 * is `{"detail": string}`).
 */
export function createLimitedServer(limits: HttpLimits, listener: RequestListener, log: Log): Server {
  const server = createServer(
    {
      keepAliveTimeout: 5_000,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      // Node's own refusal of a request without Host has an empty body; the listener below answers it.
      requireHostHeader: false,
      // Node checks the two timeouts on this beat (30 s by default, which would let a 10 s limit run to 40 s).
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4))),
    },
  );
  const overCap = new WeakSet<Socket>();
  let open = 0;
  server.on("connection", (socket: Socket) => {
    open += 1;
    if (open > limits.maxConnections) overCap.add(socket);
    socket.once("close", () => (open -= 1));
    lingerOnClose(socket);
  });
  // Connections whose last answer went out before its request's body was all in (a 404 to a
  // large upload): if that body then times out, the client has its answer already.
  const answeredEarly = new WeakSet<Duplex>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    response.once("finish", () => {
      if (!request.complete) answeredEarly.add(request.socket);
    });
    if (overCap.has(request.socket)) return tooManyConnections(response);
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
    if (request.headers.host === undefined && request.httpVersion === "1.1") return answerJson(response, 400, "The Host header is required.");
    listener(request, response);
  });
  // A request with `Expect: 100-continue`: the handler decides first (401, 413...), and the client
  // is told to send its body only when the handler starts reading it.
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    continueWhenRead(request, response);
    server.emit("request", request, response);
  });
  server.on("checkExpectation", (_request: IncomingMessage, response: ServerResponse) => {
    answerJson(response, 417, "Only the expectation 100-continue is supported.");
  });
  // CONNECT is not served; without this listener Node would drop the connection unanswered.
  server.on("connect", (_request: IncomingMessage, socket: Duplex) => writeRawAnswer(socket, 405, "Method not allowed."));
  const answered = new WeakSet<Duplex>();
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Node reports a parse error again for each later read of the same socket: answer once.
    if (answered.has(socket)) return;
    answered.add(socket);
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
    // A client that hung up mid-body (EOF) is gone: its request is logged once, as 499, by the
    // request handler; there is no one to answer and nothing more to log.
    const hungUp = error.code === "HPE_INVALID_EOF_STATE" && inFlight?.headersSent === false;
    if (error.code === "ECONNRESET" || hungUp || !socket.writable || (inFlight?.headersSent === true && !inFlight.writableFinished)) {
      socket.destroy();
      return;
    }
    if (answeredEarly.has(socket) || inFlight?.writableFinished === true) {
      socket.end();
      closeLingering(socket);
      return;
    }
    const { status, detail } = describeClientError(error);
    log({ level: "info", msg: "client error", code: error.code ?? null, status });
    writeRawAnswer(socket, status, detail);
  });
  return server;
}

/** Answers a request with `{"detail"}` and closes its connection afterwards. */
function answerJson(response: ServerResponse, status: number, detail: string, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify({ detail });
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(payload),
    connection: "close",
    ...headers,
  });
  response.end(payload);
}

function tooManyConnections(response: ServerResponse): void {
  answerJson(response, 503, "Too many open connections; try again shortly.", { "retry-after": "1" });
}

/** Sends `100 Continue` the first time the handler reads the body, unless it has already answered. */
function continueWhenRead(request: IncomingMessage, response: ServerResponse): void {
  const read = request._read;
  let sent = false;
  request._read = function readAfterContinue(this: IncomingMessage, size: number) {
    if (!sent && !response.headersSent) {
      sent = true;
      response.writeContinue();
    }
    return read.call(this, size);
  };
}

/**
 * Makes Node's "close after this answer" (`Connection: close`, a 413 mid-body) a lingering close:
 * our side ends at once, the socket goes when the client ends too or after a short linger.
 */
function lingerOnClose(socket: Socket): void {
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => {
    if (socket.destroyed || socket.readableEnded) return destroySoon();
    socket.end();
    closeLingering(socket);
  };
}
