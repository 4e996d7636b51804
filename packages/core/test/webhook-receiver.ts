import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

// A webhook receiver for tests: a node:http server on 127.0.0.1 that records every request
// and answers from a script. It lives outside src/ because the core's sources may not import
// node:http (eslint.config.js).

/** How the receiver answers one request: a status (with headers), or "hang" (never answer). */
export type Answer = number | { status: number; headers: Record<string, string> } | "hang";

/** One request as the receiver saw it. */
export interface ReceivedRequest {
  headers: Record<string, string>;
  body: string;
}

/** A running test receiver. */
export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Answers the next requests with these, in order; then `fallback`. */
  script(...answers: Answer[]): void;
  /** The answer once the script is used up (200 at first). */
  fallback: Answer;
  /** Resolves once `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<void>;
  /** Stops listening and cuts every open connection (the port is then refused). */
  close(): Promise<void>;
  /** Listens again on the same port. */
  reopen(): Promise<void>;
}

/** Starts a receiver on 127.0.0.1 (port 0 picks a free one). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const answers: Answer[] = [];
  const sockets = new Set<Socket>();
  const waiters: { count: number; resolve: () => void }[] = [];

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      requests.push({ headers: request.headers as Record<string, string>, body });
      for (const waiter of waiters.filter((candidate) => requests.length >= candidate.count)) waiter.resolve();
      const answer = answers.shift() ?? receiver.fallback;
      if (answer === "hang") return;
      const { status, headers } = typeof answer === "number" ? { status: answer, headers: {} } : answer;
      response.writeHead(status, { "content-type": "text/plain", ...headers }).end("ok");
    });
  };
  let server = createServer(handle);
  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      server.on("connection", (socket) => {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
      });
      server.once("error", reject);
      server.listen(onPort, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
    });
  const boundPort = await listen(port);

  const receiver: Receiver = {
    url: `http://127.0.0.1:${boundPort}/hooks/parley`,
    port: boundPort,
    requests,
    fallback: 200,
    script: (...next) => answers.push(...next),
    waitFor: (count, timeoutMs = 5_000) =>
      requests.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`Only ${requests.length} of ${count} requests arrived.`)), timeoutMs);
            waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
          }),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
    reopen: async () => {
      server = createServer(handle);
      await listen(boundPort);
    },
  };
  return receiver;
}
