import type pg from "pg";
import { inTransaction } from "../postgres-transaction.js";
import { vectorText } from "../postgres-search-writes.js";
import { noPgvector, pgvectorAvailable, vectorMode } from "../postgres-vector-mode.js";
import { MIGRATION_LOCK } from "./migrate.js";

/** Vectors converted per statement during a move. */
const MOVE_BATCH = 1_000;

/** The float32 values of an in-process embedding (little-endian bytes). */
export const floatsOfBytes = (bytes: Buffer) => {
  const copy = new Float32Array(bytes.byteLength / 4);
  for (let index = 0; index < copy.length; index++) copy[index] = bytes.readFloatLE(index * 4);
  return copy;
};

/**
 * Moves a database from in-process vectors to pgvector (`parley migrate --vectors pgvector`):
 * in one transaction under the migration lock, the extension is created, every stored vector
 * copied into a `vector` column that replaces the BYTEA one, and each chatbot's epoch bumped.
 * Chatbots above the HNSW threshold get their index at their next write. Servers still running
 * in-process must be restarted afterwards (each reads the mode once). Returns the vectors moved,
 * or null when the database already used pgvector.
 */
export async function moveToPgvector(pool: pg.Pool): Promise<{ moved: number } | null> {
  if (!(await pgvectorAvailable(pool))) throw noPgvector();
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    if ((await vectorMode(client)) !== "in-process") return null;
    await client.query("CREATE EXTENSION IF NOT EXISTS vector");
    await client.query("ALTER TABLE search_chunks ADD COLUMN embedding_vector vector");
    let moved = 0;
    for (let after = 0; ; ) {
      const { rows } = await client.query<{ id: number; embedding: Buffer }>(
        "SELECT id, embedding FROM search_chunks WHERE id > $1 AND embedding IS NOT NULL ORDER BY id LIMIT $2",
        [after, MOVE_BATCH],
      );
      if (rows.length === 0) break;
      await client.query(
        `UPDATE search_chunks AS c SET embedding_vector = v.embedding::vector
         FROM unnest($1::bigint[], $2::text[]) AS v (id, embedding) WHERE c.id = v.id`,
        [rows.map((row) => row.id), rows.map((row) => vectorText(floatsOfBytes(row.embedding)))],
      );
      moved += rows.length;
      after = rows.at(-1)!.id;
    }
    await client.query("ALTER TABLE search_chunks DROP COLUMN embedding");
    await client.query("ALTER TABLE search_chunks RENAME COLUMN embedding_vector TO embedding");
    await client.query("UPDATE search_chatbots SET epoch = epoch + 1, hnsw_dimensions = NULL");
    return { moved };
  });
}
