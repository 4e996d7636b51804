import { runStorageContract } from "../contract/storage-contract.js";
import { createMemoryStorage } from "./memory-storage.js";

// The in-memory adapter is the reference the SQLite adapter is held to: same suite, no skips.
runStorageContract({ create: () => createMemoryStorage() });
