import { createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPinnedFetch, type ConnectTarget } from "./pinned-fetch.js";
import { createWebhookUrlCheck } from "./webhook-url-check.js";

// A public address of the documentation-free kind; the test's connector maps it to the loopback receiver.
const PUBLIC = "93.184.216.34";

let receiver: Server;
let port = 0;
const received: { host: string | undefined; body: string }[] = [];
beforeAll(async () => {
  receiver = createServer((request: IncomingMessage, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk));
    request.on("end", () => {
      received.push({ host: request.headers.host, body });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  port = (receiver.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** A name that answers a public address, then 127.0.0.1 (DNS rebinding), and a connector that records every attempt. */
function rebindingNetwork() {
  const answers = [[{ address: PUBLIC, family: 4 }], [{ address: "127.0.0.1", family: 4 }]];
  const lookups: string[] = [];
  const attempts: ConnectTarget[] = [];
  const resolve = async (hostname: string) => {
    lookups.push(hostname);
    return answers[Math.min(lookups.length - 1, answers.length - 1)]!;
  };
  const connector = (target: ConnectTarget) => {
    attempts.push(target);
    // Only the public address is "reachable", and it is the loopback receiver: nothing else is ever dialled.
    if (target.address !== PUBLIC) throw new Error(`the test refuses to dial ${target.address}`);
    return connect({ host: "127.0.0.1", port });
  };
  return { resolve, connector, lookups, attempts };
}

describe("the pinned webhook transport (issue 24)", () => {
  it("connects to the very address it resolved and checked, with the name as Host", async () => {
    const network = rebindingNetwork();
    const pinned = createPinnedFetch({ resolve: network.resolve, connect: network.connector });
    const response = await pinned(`http://hooks.example:${port}/in?x=1`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
    expect(response.status).toBe(204);
    expect(network.attempts).toEqual([{ address: PUBLIC, port, hostname: "hooks.example", tls: false }]);
    expect(received.at(-1)).toEqual({ host: `hooks.example:${port}`, body: '{"a":1}' });
  });

  it("refuses, without connecting, a name that rebinds to 127.0.0.1 after the subscription's check", async () => {
    const network = rebindingNetwork();
    const lookup = (hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: { address: string; family: number }[]) => void) =>
      void network.resolve(hostname).then((addresses) => callback(null, addresses));
    const check = createWebhookUrlCheck({ lookup: lookup as never });
    const pinned = createPinnedFetch({ resolve: network.resolve, connect: network.connector });
    // The check sees the public answer; the connection's own lookup gets 127.0.0.1.
    await check(`http://hooks.example:${port}/in`);
    await expect(pinned(`http://hooks.example:${port}/in`, { method: "POST", body: "{}" })).rejects.toMatchObject({ cause: { code: "ENONPUBLIC" } });
    expect(network.lookups).toEqual(["hooks.example", "hooks.example"]);
    expect(network.attempts).toEqual([]);
  });

  it("refuses a non-public address literal and a name with any non-public address", async () => {
    const attempts: ConnectTarget[] = [];
    const pinned = createPinnedFetch({
      resolve: async () => [{ address: PUBLIC, family: 4 }, { address: "10.0.0.7", family: 4 }],
      connect: (target) => {
        attempts.push(target);
        throw new Error("never dialled");
      },
    });
    for (const url of ["http://127.0.0.1/", "http://[::ffff:127.0.0.1]/", "http://[64:ff9b:1::a00:1]/", "http://mixed.example/"]) {
      await expect(pinned(url, { method: "POST", body: "{}" }), url).rejects.toMatchObject({ cause: { code: "ENONPUBLIC" } });
    }
    expect(attempts).toEqual([]);
  });
});
