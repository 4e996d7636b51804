// HTTP as a client would speak it on a bare socket, for the edge tests and the fuzz: the bytes
// sent are exactly the ones given, and every socket error is recorded rather than thrown.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";

/** What came back on one connection. */
export interface RawExchange {
  /** Everything the server wrote, as latin1 text. */
  text: string;
  /** The first answer's status; 0 when none arrived. */
  status: number;
  /** The first answer's headers, names in lower case. */
  headers: Record<string, string>;
  /** The first answer's body. */
  body: string;
  /** The socket error (ECONNRESET, EPIPE...) if any, else null. */
  error: string | null;
}

/** Splits the first HTTP answer of `text` into status, headers and body (Content-Length framed). */
export function parseAnswer(text: string, options: { head?: boolean } = {}): Pick<RawExchange, "status" | "headers" | "body"> & { length: number } {
  const end = text.indexOf("\r\n\r\n");
  if (end === -1) return { status: 0, headers: {}, body: "", length: 0 };
  const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  // An answer to HEAD announces its length but carries no body.
  const length = options.head === true ? 0 : Number(headers["content-length"] ?? 0);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? "")?.[1] ?? 0);
  return { status, headers, body: text.slice(end + 4, end + 4 + length), length: end + 4 + length };
}

/**
 * Connects, writes `parts` in order (a number is a pause of that many milliseconds), then reads
 * until the server closes. With `endAfterAnswer`, the client closes once a whole first answer is in.
 */
export function exchange(port: number, parts: Array<string | Buffer | number>, options: { endAfterAnswer?: boolean; timeoutMs?: number } = {}): Promise<RawExchange> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    const received: Buffer[] = [];
    let error: string | null = null;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(received).toString("latin1");
      resolve({ text, ...parseAnswer(text), error });
    };
    const timer = setTimeout(() => {
      error ??= "client timeout";
      finish();
    }, options.timeoutMs ?? 20_000);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      if (options.endAfterAnswer !== true) return;
      const answer = parseAnswer(Buffer.concat(received).toString("latin1"));
      if (answer.status !== 0 && Buffer.byteLength(answer.body, "latin1") >= Number(answer.headers["content-length"] ?? 0)) finish();
    });
    socket.on("error", (cause: NodeJS.ErrnoException) => {
      error = cause.code ?? cause.message;
      finish();
    });
    socket.on("close", finish);
    void (async () => {
      for (const part of parts) {
        if (done) return;
        if (typeof part === "number") await new Promise((wait) => setTimeout(wait, part));
        else if (!socket.write(part)) await new Promise((drained) => socket.once("drain", drained));
      }
    })();
  });
}

/**
 * One request through node's http client: the status, body and any error, never a throw. It
 * settles when the request closes, so an error after the answer (a reset, EPIPE) is seen too.
 */
export function nodeRequest(
  url: string,
  options: { method: string; headers: Record<string, string | number>; body?: Buffer; waitForContinue?: boolean },
): Promise<{ status: number; body: string; error: string | null; continued: boolean }> {
  return new Promise((resolve) => {
    let continued = false;
    let status = 0;
    let error: string | null = null;
    const chunks: Buffer[] = [];
    const request = httpRequest(url, { method: options.method, headers: options.headers, agent: false }, (response) => {
      status = response.statusCode ?? 0;
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", (cause: NodeJS.ErrnoException) => (error ??= cause.code ?? cause.message));
    });
    request.on("error", (cause: NodeJS.ErrnoException) => (error ??= cause.code ?? cause.message));
    request.on("close", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8"), error, continued }));
    if (options.waitForContinue === true) {
      request.on("continue", () => {
        continued = true;
        request.end(options.body);
      });
    } else {
      request.end(options.body);
    }
  });
}
