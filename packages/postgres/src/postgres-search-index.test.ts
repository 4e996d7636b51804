import { runSearchIndexContract } from "@parley/core/contract";
import { createPostgresSearchIndex } from "./postgres-search-index.js";
import { truncateSearch, usePglite } from "./test-pglite.js";

const pool = usePglite(4);

runSearchIndexContract({
  create: async () => {
    await truncateSearch(pool());
    return createPostgresSearchIndex({ pool: pool() });
  },
});
