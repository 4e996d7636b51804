import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/** One request a receiver got. */
export interface ReceivedWebhook {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on 127.0.0.1 that answers 200 and keeps what it got; `next` waits for a match. */
export async function startReceiver() {
  const received: ReceivedWebhook[] = [];
  const waiting: { test: (hook: ReceivedWebhook) => boolean; resolve: (hook: ReceivedWebhook) => void }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => (body += chunk));
    request.on("end", () => {
      const hook = { headers: request.headers as Record<string, string>, body };
      received.push(hook);
      for (const waiter of waiting.filter((item) => item.test(hook))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(hook);
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/parley-events`,
    received,
    /** The first request, past or future, that passes `test`. */
    next(test: (hook: ReceivedWebhook) => boolean): Promise<ReceivedWebhook> {
      const found = received.find(test);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.push({ test, resolve }));
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
