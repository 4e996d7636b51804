import type { Database } from "better-sqlite3";

/** One forward-only schema step. Versions are consecutive integers starting at 1. */
export interface Migration {
  version: number;
  name: string;
  /** Runs inside the transaction that records the version. */
  up(database: Database): void;
}
