export { runRateLimiterContract, type RateLimiterContractOptions } from "./rate-limiter-contract.js";
export type { SkippedCase } from "./skip.js";
export { runSearchIndexContract, type SearchIndexContractOptions } from "./search-index-contract.js";
export { seededRandom } from "./seeded-random.js";
export { runStorageContract, type StorageContractOptions } from "./storage-contract.js";
