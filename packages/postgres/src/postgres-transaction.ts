import type pg from "pg";

/** A client of the pool inside one transaction; the transaction commits when `step` resolves. */
export async function inTransaction<Result>(pool: pg.Pool, step: (client: pg.PoolClient) => Promise<Result>): Promise<Result> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const result = await step(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
