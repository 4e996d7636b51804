import { randomUUID } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import type pg from "pg";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createPool, openPostgres } from "./postgres-database.js";
import type { MigrationTrack } from "./migrations/migrate.js";
import type { VectorMode } from "./postgres-vector-mode.js";

/** The PostgreSQL tests run on: `PARLEY_TEST_DATABASE_URL` (`.ci/run` sets it), or none. */
export const testDatabaseUrl = process.env.PARLEY_TEST_DATABASE_URL?.trim() || undefined;

/** Declares a suite that cannot run without a PostgreSQL server as skipped, with the reason in its name. */
export function skipWithoutPostgres(suite: string): void {
  const reason = "PARLEY_TEST_DATABASE_URL is not set, so there is no PostgreSQL server to run it on";
  console.warn(`skipped: ${suite}: ${reason}.`);
  describe.skip(`${suite} (skipped: ${reason})`, () => it("needs a PostgreSQL server", () => {}));
}

/**
 * A schema of its own on the test server for one test file, migrated, dropped after the file:
 * test files running side by side never see each other's rows. Returns a getter of the pool.
 */
export function useTestSchema(url: string, tracks: readonly MigrationTrack[] = ["storage"], poolSize = 10, vectors?: VectorMode): () => pg.Pool {
  const schema = `parley_test_${randomUUID().replaceAll("-", "")}`;
  let pool: pg.Pool;
  beforeAll(async () => {
    const setup = createPool({ url, poolSize: 1 });
    await setup.query(`CREATE SCHEMA ${schema}`);
    await setup.end();
    pool = createPool({ url, poolSize, schema });
    await openPostgres({ pool, tracks, ...(vectors === undefined ? {} : { vectors }) });
  });
  afterAll(async () => {
    await pool?.query(`DROP SCHEMA ${schema} CASCADE`);
    await pool?.end();
  });
  return () => pool;
}

/** Empties every storage table, so each test starts from nothing. */
export async function truncateStorage(pool: pg.Pool): Promise<void> {
  await pool.query(`TRUNCATE plans, users, api_keys, chatbots, conversations, messages, monthly_usage, outbox_events, ingestions,
    webhook_subscriptions, webhook_deliveries, uploads RESTART IDENTITY CASCADE`);
}

/**
 * A TCP relay to the PostgreSQL server of `url` that a test can silence: its connections stay
 * open but pass no answer back, as from a server that hangs (stopped, or behind a lost network).
 */
export async function startSilenceableRelay(url: string): Promise<{ url: string; silence(): void; close(): Promise<void> }> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  const answers = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port || 5432), target.hostname);
    answers.add(outbound);
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on("error", () => {});
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const relayed = new URL(url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String((server.address() as { port: number }).port);
  return {
    url: relayed.toString(),
    silence: () => {
      for (const outbound of answers) outbound.unpipe().pause();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
