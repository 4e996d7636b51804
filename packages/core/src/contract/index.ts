export { runRateLimiterContract, type RateLimiterContractOptions } from "./rate-limiter-contract.js";
export type { SkippedCase } from "./skip.js";
