import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { UNPREPARED_PARAMETER } from "./postgres-database.js";

/** A PGlite (PostgreSQL in WebAssembly, with pgvector) served over the wire protocol on 127.0.0.1. */
export interface PgliteServer {
  /** A postgres:// URL that `pg` connects to. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts an in-memory PGlite with pgvector on a free port of 127.0.0.1, for tests and for
 * `npm run eval -- --store postgres` without a PostgreSQL server. PGlite runs one query at a
 * time: a real server is for throughput. Needs the dev dependencies `@electric-sql/pglite`,
 * `@electric-sql/pglite-pgvector` and `@electric-sql/pglite-socket`, so it is not part of the
 * built package: `@parley/postgres/pglite` resolves only under the `source` condition, in this
 * repository.
 */
export async function startPgliteServer(options: { dataDir?: string } = {}): Promise<PgliteServer> {
  const database = await PGlite.create({ dataDir: options.dataDir, extensions: { vector } });
  const server = new PGLiteSocketServer({ db: database, host: "127.0.0.1", port: 0, maxConnections: 100 });
  await server.start();
  return {
    // Every connection is served by PGlite's one session, so none may prepare a named statement.
    url: `postgres://postgres@${server.getServerConn()}/postgres?${UNPREPARED_PARAMETER}=off`,
    async stop() {
      await server.stop();
      await database.close();
    },
  };
}
