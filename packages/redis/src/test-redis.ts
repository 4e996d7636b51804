import { randomUUID } from "node:crypto";
import { createServer, connect, type Server, type Socket } from "node:net";
import { describe, it } from "vitest";

/** The Redis tests run on: `PARLEY_TEST_REDIS_URL` (`.ci/run` sets it), or none. */
export const testRedisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || undefined;

/** Declares a suite that cannot run without a Redis as skipped, with the reason in its name. */
export function skipWithoutRedis(suite: string): void {
  const reason = "PARLEY_TEST_REDIS_URL is not set, so there is no Redis to run it on";
  console.warn(`skipped: ${suite}: ${reason}.`);
  describe.skip(`${suite} (skipped: ${reason})`, () => it("needs a Redis", () => {}));
}

/** A key prefix of its own, so tests sharing one Redis never see each other's windows. */
export const uniquePrefix = () => `parley-test:${randomUUID()}:`;

/** A TCP relay to Redis that a test can cut, to see what the limiter does when Redis goes away. */
export async function startCuttableRelay(url: string): Promise<{ url: string; cut(): Promise<void>; silence(): void }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const outbounds = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 6379), target.hostname);
    outbounds.add(outbound);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => {});
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  const relayed = new URL(url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(port);
  return {
    url: relayed.toString(),
    /** Keeps every connection open but passes no answer back: a Redis that hangs. */
    silence: () => {
      for (const outbound of outbounds) outbound.unpipe().pause();
    },
    cut: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
