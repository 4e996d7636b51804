import { createClient } from "redis";
import { redactUrl } from "@parley/core";
import { createCommandDeadlines } from "./command-deadlines.js";
import type { RedisScripting } from "./redis-rate-limiter.js";

/** How long one command may wait for Redis before the request is refused (or let through). */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2_000;

/** Commands a connection holds at most (sent and unanswered, or waiting to be sent). */
const MAX_QUEUED_COMMANDS = 10_000;

/** A node-redis client as {@link connectRedis} configures it. */
export type RedisClient = ReturnType<typeof buildClient>;

/** A connected node-redis client, the limiter's commands on it, and how to close it. */
export interface RedisConnection {
  /** The client itself: its commands have no deadline. */
  client: RedisClient;
  /** The rate limiter's commands, each refused after `commandTimeoutMs` without an answer. */
  scripting: RedisScripting;
  close(): Promise<void>;
}

/**
 * Connects to Redis for the rate limiters. Commands fail at once while the connection is down
 * (no offline queue), and the limiter's (`scripting`) after `commandTimeoutMs`, so a request
 * never hangs on a lost Redis; the client keeps reconnecting in the background. The first
 * connection must succeed.
 */
export async function connectRedis(url: string, options: { commandTimeoutMs?: number } = {}): Promise<RedisConnection> {
  const client = buildClient(url);
  // Without a listener an 'error' event would crash the process; reconnection is automatic.
  client.on("error", () => {});
  try {
    await connectOnce(client);
  } catch (error) {
    client.destroy();
    throw new Error(`Cannot connect to Redis at ${redactUrl(url)}: ${(error as Error).message}`, { cause: error });
  }
  // Deadlines of our own (command-deadlines.ts): node-redis's bound no answer.
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  const deadlines = createCommandDeadlines(timeoutMs);
  const scripting: RedisScripting = {
    evalSha: (sha1, args) => deadlines.run(() => client.evalSha(sha1, args)),
    eval: (script, args) => deadlines.run(() => client.eval(script, args)),
  };
  return { client, scripting, close: () => closeWithin(client, timeoutMs) };
}

/** Closes gracefully (the commands sent are answered first), but drops the connection of a Redis that does not answer within `timeoutMs`. */
async function closeWithin(client: RedisClient, timeoutMs: number): Promise<void> {
  if (!client.isOpen) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const closed = await Promise.race([
    client.close().then(
      () => true,
      () => false,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs))),
  ]);
  clearTimeout(timer);
  if (!closed) client.destroy();
}

function buildClient(url: string) {
  return createClient({
    url,
    disableOfflineQueue: true,
    socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000) },
    // No timer per command (node-redis's default arms one of 5 s each): see `scripting`.
    commandOptions: { timeout: 0 },
    // Commands past their deadline wait here for a hung Redis's answer: refuse beyond this many.
    commandsQueueMaxLength: MAX_QUEUED_COMMANDS,
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

