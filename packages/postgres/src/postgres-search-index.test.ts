import { runSearchIndexContract } from "@parley/core/contract";
import { describe } from "vitest";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { truncateSearch, usePglite } from "./test-pglite.js";
import { useSearchDatabase } from "./test-search-database.js";

// The contract on the test server (in-process vectors on a server without pgvector), and on
// PGlite, which has pgvector: each vector mode meets the same cases.

describe("on the test database", () => {
  const { pool } = useSearchDatabase();
  runSearchIndexContract({
    create: async () => {
      await truncateSearch(pool());
      return createPostgresSearchIndex({ pool: pool() });
    },
  });
});

describe("with pgvector (PGlite)", () => {
  const pool = usePglite(4);
  runSearchIndexContract({
    create: async () => {
      await truncateSearch(pool());
      return createPostgresSearchIndex({ pool: pool() });
    },
  });
});
