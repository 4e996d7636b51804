import type pg from "pg";
import { toUnavailable } from "./postgres-unavailable.js";

/**
 * A client of the pool inside one transaction; the transaction commits when `step` resolves. A
 * connection lost on the way fails with the core's `unavailable` error and is discarded, not
 * returned to the pool; PostgreSQL rolls back whatever the transaction had written.
 */
export async function inTransaction<Result>(pool: pg.Pool, step: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
  const client = await pool.connect();
  // A connection killed while checked out emits 'error'; the failing query reports it below.
  const ignore = () => {};
  client.on("error", ignore);
  let failure: unknown;
  try {
    await client.query("BEGIN");
    const result = await step(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    failure = error;
    // A lost or hung connection is discarded below, which rolls back as surely; asking it to
    // roll back would wait for a hung server's answer once more.
    if (toUnavailable(error) === error) await client.query("ROLLBACK").catch(() => {});
    throw toUnavailable(error);
  } finally {
    client.off("error", ignore);
    // A client whose connection failed is destroyed rather than handed to the next caller.
    client.release(failure !== undefined && toUnavailable(failure) !== failure ? (failure as Error) : undefined);
  }
}
