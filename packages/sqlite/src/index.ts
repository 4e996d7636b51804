export { openDatabase, migrate, schemaVersion, type OpenDatabaseOptions } from "./database.js";
export { createSqliteStorage, type SqliteStorage, type SqliteStorageOptions } from "./sqlite-storage.js";
export { createSqliteSearchIndex, type SqliteSearchIndex, type SqliteSearchIndexOptions } from "./sqlite-search-index.js";
export type { DatabaseFileMode, DatabaseFileModes } from "./database-file-modes.js";
export { createSqliteUploadStore } from "./sqlite-upload-store.js";
export { startWalCheckpointer, type CheckpointResult, type WalCheckpointer, type WalCheckpointerOptions } from "./wal-checkpointer.js";
