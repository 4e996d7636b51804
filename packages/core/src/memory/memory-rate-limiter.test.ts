import { runRateLimiterContract } from "../contract/rate-limiter-contract.js";
import { createManualClock } from "./manual-clock.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";

runRateLimiterContract({ create: (clock) => createMemoryRateLimiter({ clock }), createClock: () => createManualClock() });
