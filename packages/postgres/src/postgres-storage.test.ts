import { runStorageContract } from "@parley/core/contract";
import { createPostgresStorage } from "./postgres-storage.js";
import { skipWithoutPostgres, testDatabaseUrl, truncateStorage, useTestSchema } from "./test-postgres.js";

if (testDatabaseUrl === undefined) {
  skipWithoutPostgres("the Storage contract on PostgreSQL");
} else {
  const pool = useTestSchema(testDatabaseUrl);
  runStorageContract({
    create: async () => {
      await truncateStorage(pool());
      return createPostgresStorage({ pool: pool() });
    },
  });
}
