import pg from "pg";
import { redactUrl } from "@parley/core";
import { migratePostgres, type MigrationTrack } from "./migrations/migrate.js";
import { PostgresSetupError } from "./postgres-setup-error.js";
import { toUnavailable } from "./postgres-unavailable.js";
import type { VectorMode } from "./postgres-vector-mode.js";

/** Connections a pool opens at most, unless told otherwise. */
export const DEFAULT_POOL_SIZE = 10;
/** How long one statement may run before PostgreSQL cancels it, unless told otherwise. */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** How long after the statement timeout the client stops waiting for an answer. */
const CLIENT_TIMEOUT_MARGIN_MS = 2_000;

/** How to reach PostgreSQL: a URL (the adapter opens and closes its pool) or a pool of the caller's. */
export type PostgresConnectionOptions = (
  | { url: string; poolSize?: number; statementTimeoutMs?: number; schema?: string }
  | { pool: pg.Pool }
) & {
  /** Which parts of the schema to bring up to date on open (default: both). */
  tracks?: readonly MigrationTrack[];
  /** The vector mode of a new search schema (default: pgvector where the server has it, else in-process). */
  vectors?: VectorMode;
};

/** An open, migrated PostgreSQL database. */
export interface PostgresDatabase {
  pool: pg.Pool;
  /** How the database stores and searches vectors; undefined when the search track was not opened. */
  vectors: VectorMode | undefined;
  /** Ends the pool when the adapter opened it; a pool the caller gave stays open. */
  close(): Promise<void>;
}

// int8 (bigint) columns hold microsecond times and counts, all below 2^53: read them as numbers.
const INT8_OID = 20;
const parseInt8 = (text: string) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`A bigint value is out of JavaScript's safe range: ${text}`);
  return value;
};
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === INT8_OID && format !== "binary" ? parseInt8 : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/** The URL parameter that turns server-side prepared statements off, for endpoints whose connections share one session. */
export const UNPREPARED_PARAMETER = "parley_prepared_statements";

/** The URL without Parley's own parameter, and whether statements may be prepared on its connections. */
function preparedStatementsOf(connectionString: string): { url: string; prepared: boolean } {
  if (!connectionString.includes(UNPREPARED_PARAMETER)) return { url: connectionString, prepared: true };
  const url = new URL(connectionString);
  const prepared = url.searchParams.get(UNPREPARED_PARAMETER) !== "off";
  url.searchParams.delete(UNPREPARED_PARAMETER);
  return { url: url.toString(), prepared };
}

/**
 * Sends a client's named statements unnamed (parsed and planned at each execution), for a server
 * whose connections share one session, where a name prepared by one would clash with the same
 * name prepared by another: PGlite's socket server, a pooler in transaction mode.
 */
function unprepared(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  client.query = ((config: unknown, ...rest: unknown[]) =>
    typeof config === "object" && config !== null && "name" in config ? query({ ...config, name: undefined }, ...rest) : query(config, ...rest)) as typeof client.query;
}

/**
 * A pool on `url` that reads bigints as numbers and sets a statement timeout (and, for tests,
 * a schema) on every connection it opens.
 */
export function createPool(options: { url: string; poolSize?: number; statementTimeoutMs?: number; schema?: string }): pg.Pool {
  const timeout = Math.max(0, Math.floor(options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS));
  const { url, prepared } = preparedStatementsOf(options.url);
  // Both go in the startup packet, so they hold from the connection's first query on. The schema
  // name comes from code (tests), never from a user.
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: 10_000,
    statement_timeout: timeout,
    // The statement timeout is the server's: a server that hangs (stopped, or behind a lost
    // network) never sends it. The client gives up a little after it, and the connection is
    // discarded (postgres-unavailable.ts counts the read timeout as a lost connection).
    ...(timeout === 0 ? {} : { query_timeout: timeout + CLIENT_TIMEOUT_MARGIN_MS }),
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema.replace(/[^a-z0-9_]/g, "")}` }),
    types,
  });
  // An idle client whose server went away emits 'error'; without a listener it would crash the process.
  pool.on("error", () => {});
  if (!prepared) pool.on("connect", unprepared);
  // A lost connection or a server that is down fails as the core's `unavailable` error (503 at
  // the HTTP edge) instead of an unexpected fault; the pool opens new connections as it needs them,
  // so the server recovers by itself once PostgreSQL is back.
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => {
    const result = query(...args);
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toUnavailable(error))) : result;
  }) as typeof pool.query;
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    const result = connect(...args);
    return result instanceof Promise ? result.catch((error: unknown) => Promise.reject(toUnavailable(error))) : result;
  }) as typeof pool.connect;
  return pool;
}

/**
 * Opens PostgreSQL for Parley: checks it can be reached, and brings the schema up to date
 * (docs/design.md §13). Fails with a PostgresSetupError that says what is wrong when the
 * database is unreachable, was asked for pgvector and lacks it, or was migrated by a newer Parley.
 */
export async function openPostgres(options: PostgresConnectionOptions): Promise<PostgresDatabase> {
  const owned = !("pool" in options);
  const pool = "pool" in options ? options.pool : createPool(options);
  const close = async () => {
    if (owned) await pool.end();
  };
  try {
    try {
      await pool.query("SELECT 1");
    } catch (error) {
      const where = "url" in options ? redactUrl(options.url) : "the given pool";
      const reason = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
      throw new PostgresSetupError(`Cannot connect to PostgreSQL at ${where}: ${reason.message}`, { cause: error });
    }
    const tracks = options.tracks ?? ["storage", "search"];
    const { vectors } = await migratePostgres(pool, tracks, options.vectors === undefined ? {} : { vectors: options.vectors });
    return { pool, vectors: tracks.includes("search") ? vectors : undefined, close };
  } catch (error) {
    await close().catch(() => {});
    throw error;
  }
}
