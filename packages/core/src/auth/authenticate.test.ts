import { describe, expect, it } from "vitest";
import { sha256Hex } from "../support/hash.js";
import { rejection, setup } from "../../test/harness.js";

describe("authenticate", () => {
  it("returns the key's user and key", async () => {
    const { parley, key, user } = await setup();
    const caller = await parley.authenticate(key);
    expect(caller.user.id).toBe(user.id);
    expect(key).toMatch(/^prl_[A-Za-z0-9_-]{43}$/);
  });

  it.each([undefined, null, "", "prl_", "Bearer prl_x", "sk-123", `prl_${"A".repeat(43)}`])(
    "refuses %j with 'Invalid or missing API key.'",
    async (candidate) => {
      const { parley } = await setup();
      expect(await rejection(parley.authenticate(candidate))).toMatchObject({ code: "unauthorized", detail: "Invalid or missing API key." });
    },
  );

  it("stores only the SHA-256 of the key", async () => {
    const { storage, key, caller } = await setup();
    expect(caller.apiKey.keyHash).toBe(sha256Hex(key));
    expect(JSON.stringify(caller.apiKey)).not.toContain(key);
    expect(await storage.findApiKeyByHash(sha256Hex(key))).not.toBeNull();
  });

  it("refuses a revoked key at once", async () => {
    const { parley, key, caller } = await setup();
    await parley.admin.revokeApiKey(caller.apiKey.id);
    expect((await rejection(parley.authenticate(key))).code).toBe("unauthorized");
  });
});

describe("admitRequest: the per-key rate limit", () => {
  it("lets 60 requests through in a minute, refuses the 61st, and lets one through once the first leaves the window", async () => {
    const { parley, caller, clock } = await setup();
    for (let index = 0; index < 60; index += 1) {
      const status = await parley.admitRequest(caller);
      expect(status.remaining).toBe(59 - index);
      clock.advance(500);
    }
    const error = await rejection(parley.admitRequest(caller));
    expect(error).toMatchObject({ code: "rate_limited", detail: "API rate limit exceeded. Maximum 60 requests per minute." });
    expect(error.retryAfterSeconds).toBe(30); // the first request leaves the window 30 s from now
    clock.advance(30_001);
    await expect(parley.admitRequest(caller)).resolves.toMatchObject({ limit: 60, remaining: 0 });
  });

  it("counts per key, and uses the configured limit in the detail", async () => {
    const { parley, caller, user } = await setup({ settings: { keyRequestsPerMinute: 1 } });
    await parley.admitRequest(caller);
    expect((await rejection(parley.admitRequest(caller))).detail).toBe("API rate limit exceeded. Maximum 1 requests per minute.");
    const second = await parley.authenticate((await parley.admin.createApiKey({ userId: user.id })).key);
    await expect(parley.admitRequest(second)).resolves.toMatchObject({ remaining: 0 });
  });
});
