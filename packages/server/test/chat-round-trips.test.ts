import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createPool, createPostgresSearchIndex, createPostgresStorage, createPostgresUploadStore, openPostgres } from "@parley/postgres";
import { connectRedis, createRedisRateLimiter, type RedisConnection } from "@parley/redis";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRequestHandler } from "../src/http/create-request-handler.js";
import { loadConfig } from "../src/runtime/config.js";
import { wireParley } from "../src/runtime/open-parley.js";
import { call, environment } from "./harness.js";
import { startTestPostgres, testDatabaseUrl, type TestPostgres } from "./test-postgres-url.js";

// What a chat costs in round trips on PostgreSQL and Redis, counted at the clients: every query
// sent (BEGIN and COMMIT included) and every Redis script call. The bounds are today's counts,
// so the test fails when a change adds one; lower them as the path gets cheaper.

/**
 * Round trips of a chat on the common path (a known key, an existing conversation, a chatbot with
 * documents): 4 (the key with the chat's state, accepting the message, retrieval in one statement
 * with its documents, the reply), whatever the sources; 1 to Redis (both limits in one script).
 */
const DATABASE_ROUND_TRIPS = 4;
const REDIS_ROUND_TRIPS = 1;

const redisUrl = process.env.PARLEY_TEST_REDIS_URL?.trim() || undefined;

/** Counts every query a pool sends, through `pool.query` and through its checked-out clients. */
function countQueries(pool: pg.Pool) {
  const counter = { queries: 0, statements: [] as string[] };
  const record = (text: unknown) => {
    counter.queries += 1;
    counter.statements.push(String(typeof text === "object" && text !== null && "text" in text ? (text as { text: string }).text : text).split("\n")[0]!.slice(0, 80));
  };
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  pool.query = ((...args: unknown[]) => (record(args[0]), query(...args))) as typeof pool.query;
  // pool.query checks out a client through pool.connect(callback) and sends on it: counted above,
  // so a client's own queries count only while the promise form (a transaction) holds it.
  const connect = pool.connect.bind(pool) as (...args: unknown[]) => unknown;
  pool.connect = ((...args: unknown[]) => {
    if (args.length > 0) return connect(...args);
    return (connect() as Promise<pg.PoolClient>).then((client) => {
      const held = client as pg.PoolClient & { held?: boolean; wrapped?: boolean };
      if (!held.wrapped) {
        const clientQuery = client.query.bind(client) as (...queryArgs: unknown[]) => unknown;
        client.query = ((...queryArgs: unknown[]) => (held.held && record(queryArgs[0]), clientQuery(...queryArgs))) as typeof client.query;
        held.wrapped = true;
      }
      // The pool sets `release` anew at each checkout: wrapped each time.
      const release = client.release.bind(client);
      client.release = ((...releaseArgs: Parameters<typeof release>) => ((held.held = false), release(...releaseArgs))) as typeof client.release;
      held.held = true;
      return client;
    });
  }) as typeof pool.connect;
  return counter;
}

if (testDatabaseUrl === undefined || redisUrl === undefined) console.warn("skipped: a chat's round trips: PARLEY_TEST_DATABASE_URL and PARLEY_TEST_REDIS_URL are not both set.");
describe.skipIf(testDatabaseUrl === undefined || redisUrl === undefined)("a chat's round trips on PostgreSQL and Redis (needs both test servers)", () => {
  let context: Awaited<ReturnType<typeof environment>>;
  let database: TestPostgres;
  let pool: pg.Pool;
  let redis: RedisConnection;
  let server: Server;
  let url: string;
  let wired: ReturnType<typeof wireParley>;
  let counter: ReturnType<typeof countQueries>;
  const redisCalls = { count: 0 };

  beforeAll(async () => {
    context = await environment({ PARLEY_SECRET_KEY: "a-master-key-for-the-round-trip-count" });
    database = await startTestPostgres();
    pool = createPool({ url: database.url, poolSize: 4 });
    const { vectors } = await openPostgres({ pool });
    redis = await connectRedis(redisUrl!);
    const client = {
      evalSha: (...args: Parameters<typeof redis.client.evalSha>) => ((redisCalls.count += 1), redis.client.evalSha(...args)),
      eval: (...args: Parameters<typeof redis.client.eval>) => ((redisCalls.count += 1), redis.client.eval(...args)),
    };
    const rateLimiter = createRedisRateLimiter({ client, prefix: `parley-round-trips:${Date.now()}:` });
    wired = wireParley(loadConfig(context.env), {
      storage: createPostgresStorage({ pool }),
      searchIndex: createPostgresSearchIndex({ pool, ...(vectors === undefined ? {} : { vectors }) }),
      uploads: createPostgresUploadStore(pool),
      rateLimiter,
    });
    server = createServer(createRequestHandler({ parley: wired.parley, log: () => {} }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    counter = countQueries(pool);
  }, 60_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await redis?.close();
    await pool?.end();
    await database?.stop();
    await context?.cleanup();
  });

  it(`costs at most ${DATABASE_ROUND_TRIPS} database and ${REDIS_ROUND_TRIPS} Redis round trips`, async () => {
    const { admin } = wired.parley;
    const user = await admin.createUser({ email: "trips@example.com" });
    const { key } = await admin.createApiKey({ userId: user.id });
    const chatbot = await admin.createChatbot({ userId: user.id, name: "Trips", provider: "openai", model: "gpt-test" });
    await admin.ingestDocument(chatbot.id, { source: "kettle.md", title: "Kettle", text: "Descale the kettle every month with citric acid. The warranty lasts two years." });
    const chat = () => call(`${url}/v1/chatbots/${chatbot.id}/chat`, { key, body: { message: "How often should I descale the kettle?", session_id: "visitor" } });
    expect((await chat()).status).toBe(200); // the key's first use, the conversation's creation, the vectors' first load

    counter.queries = 0;
    counter.statements = [];
    redisCalls.count = 0;
    const answered = await chat();
    expect(answered.status).toBe(200);
    const report = `database: ${counter.queries} (${counter.statements.join(" | ")}); Redis: ${redisCalls.count}`;
    console.log(`a chat's round trips: ${report}`);
    expect(counter.queries, report).toBeLessThanOrEqual(DATABASE_ROUND_TRIPS);
    expect(redisCalls.count, report).toBeLessThanOrEqual(REDIS_ROUND_TRIPS);
  }, 60_000);
});
