import type pg from "pg";
import type { VectorMode } from "../postgres-vector-mode.js";

// The shape of one migration, apart from the runner (migrate.ts), so the tracks' lists can name
// it without importing the runner that imports them.

/** One forward-only schema step of a track. Versions are consecutive integers from 1. */
export interface PostgresMigration {
  version: number;
  name: string;
  /** Runs inside the transaction that records the version. */
  up(client: pg.PoolClient, context: MigrationContext): Promise<void>;
}

/** What a migration may depend on besides the schema. */
export interface MigrationContext {
  /** The vector mode of the search schema: decided by its first step, read from the schema after. */
  vectors: VectorMode;
}
