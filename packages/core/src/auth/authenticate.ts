import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { rateLimited, unauthorized, type RateLimitStatus } from "../errors.js";
import { sha256Hex } from "../support/hash.js";

/** Every API key starts with this prefix, followed by 32 random bytes in base64url. */
export const API_KEY_PREFIX = "prl_";
const API_KEY_PATTERN = /^prl_[A-Za-z0-9_-]{43}$/;

/** The calling user of an API key, or `unauthorized` for a missing, malformed, unknown or revoked key. */
export async function authenticate(dependencies: Pick<Dependencies, "storage">, apiKey: string | undefined | null): Promise<Caller> {
  // A malformed key never reaches the database.
  if (typeof apiKey !== "string" || !API_KEY_PATTERN.test(apiKey)) throw unauthorized();
  const found = await dependencies.storage.findApiKeyByHash(sha256Hex(apiKey));
  if (!found || found.apiKey.revokedAt !== null) throw unauthorized();
  return { user: found.user, apiKey: found.apiKey };
}

/**
 * Counts one request against the caller's per-key limit (docs/design.md §4: N requests in any 60 s
 * window; every request let through counts, refused ones do not). Throws `rate_limited`.
 */
export async function admitRequest(dependencies: Pick<Dependencies, "rateLimiter" | "settings">, caller: Caller): Promise<RateLimitStatus> {
  const limit = dependencies.settings.keyRequestsPerMinute;
  const decision = await dependencies.rateLimiter.hit(`key:${caller.apiKey.id}`, limit, 60_000);
  const status: RateLimitStatus = {
    limit,
    remaining: decision.remaining,
    resetSeconds: Math.ceil(decision.resetMs / 1000),
  };
  if (!decision.allowed) throw rateLimited(status, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return status;
}
