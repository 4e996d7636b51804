export { createPool, DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS, openPostgres, redactDatabaseUrl, type PostgresConnectionOptions, type PostgresDatabase } from "./postgres-database.js";
export { PostgresSetupError } from "./postgres-setup-error.js";
export { MIGRATIONS, migratePostgres, schemaVersion, type MigrateOptions, type MigrationTrack, type PostgresMigration } from "./migrations/migrate.js";
export { moveToPgvector } from "./migrations/move-to-pgvector.js";
export { pgvectorAvailable, vectorMode, type VectorMode } from "./postgres-vector-mode.js";
export { createPostgresSearchIndex, type PostgresSearchIndexOptions } from "./postgres-search-index.js";
export { createPostgresStorage, type PostgresStorageOptions } from "./postgres-storage.js";
export { fromText, toText } from "./postgres-text.js";
export { inTransaction } from "./postgres-transaction.js";
