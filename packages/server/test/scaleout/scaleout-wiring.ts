import { createPool, createPostgresSearchIndex, createPostgresStorage, createPostgresUploadStore } from "@parley/postgres";
import { connectRedis, createRedisRateLimiter } from "@parley/redis";
import type { ServerConfig } from "../../src/runtime/config.js";
import { wireParley, type ParleyRuntime } from "../../src/runtime/open-parley.js";

/** Where a scale-out process finds its engines (passed to child processes as environment). */
export interface ScaleoutEngines {
  /** The PostgreSQL server holding Storage and the search index, and the schema of this run. */
  databaseUrl: string;
  schema: string;
  redisUrl: string;
  /** Keys of this run in Redis, so runs never share windows. */
  redisPrefix: string;
}

/**
 * A runtime on PostgreSQL and Redis, wired through the library's public API as `openRuntime`
 * wires it, in a schema of this run. Its dispatcher uses a short lease and poll interval, so a
 * killed process's claims come back within the test.
 */
export async function openScaleoutRuntime(config: ServerConfig, engines: ScaleoutEngines): Promise<ParleyRuntime> {
  const pool = createPool({ url: engines.databaseUrl, schema: engines.schema, poolSize: 10 });
  const redis = await connectRedis(engines.redisUrl);
  const rateLimiter = createRedisRateLimiter({ client: redis.scripting, prefix: engines.redisPrefix });
  const searchIndex = createPostgresSearchIndex({ pool });
  const wired = wireParley(config, { storage: createPostgresStorage({ pool }), searchIndex, uploads: createPostgresUploadStore(pool), rateLimiter });
  const dispatcher = wired.parley.createWebhookDispatcher({ leaseMs: 3_000, pollIntervalMs: 100, timeoutMs: 2_000, log: () => {} });
  return {
    engine: "postgres",
    ...wired,
    dispatcher,
    searchIndex,
    warmUp: async () => ({ chatbots: 0, words: 0 }),
    userCount: async () => (await pool.query<{ users: number }>("SELECT count(*) AS users FROM users")).rows[0]!.users,
    schemaVersions: async () => ({}),
    close: async () => {
      await pool.end();
      await redis.close().catch(() => {});
    },
  };
}

/** The engines as environment variables for a child, and back. */
export const enginesToEnv = (engines: ScaleoutEngines): Record<string, string> => ({ PARLEY_SCALEOUT_ENGINES: JSON.stringify(engines) });
export const enginesFromEnv = (env: NodeJS.ProcessEnv): ScaleoutEngines => JSON.parse(env.PARLEY_SCALEOUT_ENGINES!) as ScaleoutEngines;
