import { describe, expect, it } from "vitest";
import { runRateLimiterContract } from "../contract/rate-limiter-contract.js";
import { createManualClock } from "./manual-clock.js";
import { createMemoryRateLimiter } from "./memory-rate-limiter.js";

runRateLimiterContract({ create: (clock) => createMemoryRateLimiter({ clock }), createClock: () => createManualClock() });

describe("the memory rate limiter with a high limit", () => {
  it("stays exact across many hits while the window slides", async () => {
    const clock = createManualClock();
    const limiter = createMemoryRateLimiter({ clock });
    let allowed = 0;
    for (let index = 0; index < 5_000; index += 1) {
      if ((await limiter.hit("busy", 1_000, 1_000)).allowed) allowed += 1;
      clock.advance(1); // 5,000 hits over 5 s: at most 1,000 in any second
    }
    expect(allowed).toBe(5 * 1_000);
    clock.advance(1_000);
    expect(await limiter.hit("busy", 1_000, 1_000)).toMatchObject({ allowed: true, remaining: 999 });
  });
});
