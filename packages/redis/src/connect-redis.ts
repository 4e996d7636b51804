import { createClient } from "redis";
import { redactUrl } from "@parley/core";

/** How long one command may wait for Redis before the request is refused (or let through). */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** A node-redis client as {@link connectRedis} configures it. */
export type RedisClient = ReturnType<typeof buildClient>;

/** A connected node-redis client and how to close it. */
export interface RedisConnection {
  client: RedisClient;
  close(): Promise<void>;
}

/**
 * Connects to Redis for the rate limiters. Commands fail at once while the connection is down
 * (no offline queue) and after `commandTimeoutMs`, so a request never hangs on a lost Redis;
 * the client keeps reconnecting in the background. The first connection must succeed.
 */
export async function connectRedis(url: string, options: { commandTimeoutMs?: number } = {}): Promise<RedisConnection> {
  const client = buildClient(url, options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS);
  // Without a listener an 'error' event would crash the process; reconnection is automatic.
  client.on("error", () => {});
  try {
    await connectOnce(client);
  } catch (error) {
    client.destroy();
    throw new Error(`Cannot connect to Redis at ${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  return { client, close: async () => void (client.isOpen ? await client.close() : undefined) };
}

function buildClient(url: string, commandTimeoutMs: number) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    commandOptions: { timeout: commandTimeoutMs },
  });
}

/** Connects, but gives up on the first failure instead of retrying forever. */
async function connectOnce(client: RedisClient): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const fail = (error: Error) => {
      client.off("ready", ready);
      reject(error);
    };
    const ready = () => {
      client.off("error", fail);
      resolve();
    };
    client.once("error", fail);
    client.once("ready", ready);
    client.connect().catch(fail);
  });
}

