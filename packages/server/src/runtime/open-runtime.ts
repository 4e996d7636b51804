import type { RateLimiter } from "@parley/core";
import { createPostgresSearchIndex, createPostgresStorage, createPostgresUploadStore, MIGRATIONS, moveToPgvector, openPostgres, schemaVersion, vectorMode } from "@parley/postgres";
import { connectRedis, createRedisRateLimiter, type RedisConnection } from "@parley/redis";
import { consoleLog } from "../http/log-lines.js";
import type { ServerConfig } from "./config.js";
import { copyFromSqlite } from "./copy-from-sqlite.js";
import { openParley, wireParley, type ParleyRuntime } from "./open-parley.js";

/**
 * Opens the engines the configuration names (docs/design.md §13): PostgreSQL when
 * `PARLEY_DATABASE_URL` is set, else SQLite at `PARLEY_DB`; the rate limiters on Redis when
 * `PARLEY_REDIS_URL` is set, else in process memory. Migrates the database. Fails with a message
 * that says what is wrong when a database or Redis cannot be reached or the schema is newer than
 * this code. PostgreSQL serves with or without pgvector (docs/design.md, "Any PostgreSQL").
 */
export async function openRuntime(config: ServerConfig): Promise<ParleyRuntime> {
  const redis = config.redisUrl === undefined ? undefined : await connectRedis(config.redisUrl);
  try {
    const rateLimiter = redis === undefined ? undefined : redisLimiter(redis, config);
    if (config.databaseUrl === undefined) {
      const runtime = openParley(config, rateLimiter === undefined ? {} : { rateLimiter });
      return { ...runtime, close: () => closeAll(runtime.close, redis) };
    }
    return await openPostgresRuntime(config, config.databaseUrl, rateLimiter, redis);
  } catch (error) {
    await redis?.close().catch(() => {});
    throw error;
  }
}

function redisLimiter(redis: RedisConnection, config: ServerConfig): RateLimiter {
  return createRedisRateLimiter({
    client: redis.scripting,
    failOpen: config.redisFailOpen,
    onFailure: (error) =>
      consoleLog({
        level: "error",
        event: "rate_limiter_unavailable",
        action: config.redisFailOpen ? "let through (PARLEY_REDIS_FAIL_OPEN)" : "refused with 503",
        error: error instanceof Error ? error.message.split("\n")[0] : String(error),
      }),
  });
}

async function openPostgresRuntime(config: ServerConfig, url: string, rateLimiter: RateLimiter | undefined, redis: RedisConnection | undefined): Promise<ParleyRuntime> {
  const database = await openPostgres({ url, poolSize: config.databasePoolSize, statementTimeoutMs: config.statementTimeoutMs });
  const { pool } = database;
  const searchIndex = createPostgresSearchIndex({ pool, ...(database.vectors === undefined ? {} : { vectors: database.vectors }) });
  const wired = wireParley(config, { storage: createPostgresStorage({ pool }), searchIndex, uploads: createPostgresUploadStore(pool), ...(rateLimiter === undefined ? {} : { rateLimiter }) });
  return {
    engine: "postgres",
    ...wired,
    searchIndex,
    // Nothing to read ahead: keyword search reads the database, in-process vectors load on a chatbot's first search.
    warmUp: async () => ({ chatbots: 0, words: 0 }),
    userCount: async () => (await pool.query<{ users: number }>("SELECT count(*) AS users FROM users")).rows[0]!.users,
    schemaVersions: async () => {
      const versions: Record<string, number> = {};
      for (const track of Object.keys(MIGRATIONS) as (keyof typeof MIGRATIONS)[]) versions[track] = await schemaVersion(pool, track);
      return versions;
    },
    copyFromSqlite: (path) => copyFromSqlite(path, pool, searchIndex),
    vectors: async () => (await vectorMode(pool)) ?? "in-process",
    moveToPgvector: () => moveToPgvector(pool),
    close: () => closeAll(database.close, redis),
  };
}

async function closeAll(closeDatabase: () => void | Promise<void>, redis: RedisConnection | undefined): Promise<void> {
  await closeDatabase();
  await redis?.close().catch(() => {});
}
