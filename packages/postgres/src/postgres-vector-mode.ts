import type pg from "pg";
import { PostgresSetupError } from "./postgres-setup-error.js";

/**
 * How a database stores and searches vectors (docs/design.md, "Any PostgreSQL"): `pgvector`, a
 * `vector` column searched by the extension; `in-process`, float32 bytes in a BYTEA column
 * scored by each server process on an int8 copy, then exactly. Decided when the search schema is
 * first migrated; `moveToPgvector` changes it once.
 */
export type VectorMode = "pgvector" | "in-process";

/** The database's vector mode, read from the embedding column's type; undefined before the search schema exists. */
export async function vectorMode(pool: pg.Pool | pg.PoolClient): Promise<VectorMode | undefined> {
  const { rows } = await pool.query<{ type: string }>(`SELECT t.typname AS type FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
    WHERE a.attrelid = to_regclass('search_chunks') AND a.attname = 'embedding' AND NOT a.attisdropped`);
  const type = rows[0]?.type;
  return type === undefined ? undefined : type === "bytea" ? "in-process" : "pgvector";
}

/** Whether the server has pgvector installed (or installable by CREATE EXTENSION). */
export async function pgvectorAvailable(pool: pg.Pool | pg.PoolClient): Promise<boolean> {
  const { rows } = await pool.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  return rows.length > 0;
}

/** The error for a request of pgvector on a server without it. */
export const noPgvector = () =>
  new PostgresSetupError(
    "PostgreSQL has no pgvector extension. Install pgvector on the server (e.g. the pgvector/pgvector image or the postgresql-NN-pgvector package), " +
      "or leave the vectors in process (the default where pgvector is missing).",
  );
