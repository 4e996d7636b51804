import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

/** How long a socket we closed keeps draining what the client still sends. */
const LINGER_MS = 2_000;

/**
 * The status and detail for a request Node's parser refused (its `clientError` codes), instead
 * of Node's own bare answer with an empty body.
 */
export function describeClientError(error: NodeJS.ErrnoException & { rawPacket?: Buffer }): { status: number; detail: string } {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return { status: 431, detail: "Request headers are too large." };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, detail: "The request was not received in time." };
    case "HPE_INVALID_METHOD":
      // A well-formed request line with a method Node does not know (RFC 9110 §9.1); other bytes are simply not HTTP.
      if (/^[!#$%&'*+.^_`|~0-9A-Za-z-]+ \S+ HTTP\/1\.[01]\r?\n/.test(error.rawPacket?.toString("latin1") ?? "")) return { status: 501, detail: "Method not implemented." };
      return { status: 400, detail: "Malformed HTTP request." };
    default:
      return { status: 400, detail: "Malformed HTTP request." };
  }
}

/**
 * Writes a whole `{"detail"}` answer straight on a socket (no request object exists), then
 * closes it: our side at once, the socket once the client ends or after a short linger.
 */
export function writeRawAnswer(socket: Duplex, status: number, detail: string): void {
  const payload = JSON.stringify({ detail });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    "Content-Type: application/json; charset=utf-8",
    `Content-Length: ${Buffer.byteLength(payload)}`,
    "Connection: close",
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${payload}`);
  closeLingering(socket);
}

/**
 * Destroys a socket whose writing side has ended once the client ends too, or after LINGER_MS,
 * reading and discarding what arrives meanwhile. Destroying it at once would make the kernel
 * answer the client's unread bytes with a reset, which can wipe our answer (a 413, a 431) from
 * the client's receive buffer before it reads it.
 */
export function closeLingering(socket: Duplex): void {
  socket.once("end", () => socket.destroy());
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
  socket.resume();
}
