import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { forbidden, rateLimited, unauthorized, type RateLimitStatus } from "../errors.js";
import { sha256Hex } from "../support/hash.js";

/** Every API key starts with this prefix, followed by 32 random bytes in base64url. */
export const API_KEY_PREFIX = "prl_";
const API_KEY_PATTERN = /^prl_[A-Za-z0-9_-]{43}$/;

/** The calling user of an API key, or `unauthorized` for a missing, malformed, unknown or revoked key. */
export async function authenticate(dependencies: Pick<Dependencies, "storage" | "clock">, apiKey: string | undefined | null): Promise<Caller> {
  // A malformed key never reaches the database.
  if (typeof apiKey !== "string" || !API_KEY_PATTERN.test(apiKey)) throw unauthorized();
  const found = await dependencies.storage.findApiKeyByHash(sha256Hex(apiKey));
  if (!found || found.apiKey.revokedAt !== null) throw unauthorized();
  // `last_used_at` to the minute: one write a minute per key, not one per request.
  const now = dependencies.clock.now();
  if (found.apiKey.lastUsedAt === null || now - found.apiKey.lastUsedAt >= LAST_USED_PRECISION_MICROS) {
    await dependencies.storage.touchApiKey(found.apiKey.id, now);
    found.apiKey.lastUsedAt = now;
  }
  return { user: found.user, apiKey: found.apiKey };
}

const LAST_USED_PRECISION_MICROS = 60_000_000;

/** The refusal of a chat key on the operator API (docs/design.md §9). */
export const CHAT_SCOPE_REFUSAL = "This API key cannot manage chatbots; use a key with the admin scope.";
/** The refusal of an agent key on an operator route that is not about conversations (docs/design.md §16). */
export const AGENT_SCOPE_REFUSAL = "This API key belongs to an agent: it may answer conversations, not manage chatbots, keys or webhooks.";

/** Refuses a caller whose key may not manage the account (docs/design.md §9, §16): only admin keys may. */
export function requireAdminScope(caller: Caller): void {
  if (caller.apiKey.scope === "agent") throw forbidden(AGENT_SCOPE_REFUSAL);
  if (caller.apiKey.scope !== "admin") throw forbidden(CHAT_SCOPE_REFUSAL);
}

/** Refuses a caller whose key may not answer conversations (docs/design.md §16): admin and agent keys may. */
export function requireAgentScope(caller: Caller): void {
  if (caller.apiKey.scope !== "admin" && caller.apiKey.scope !== "agent") throw forbidden(CHAT_SCOPE_REFUSAL);
}

/**
 * Counts one request against the caller's per-key limit (docs/design.md §4: N requests in any 60 s
 * window; every request let through counts, refused ones do not). Throws `rate_limited`.
 */
export async function admitRequest(dependencies: Pick<Dependencies, "rateLimiter" | "settings">, caller: Caller): Promise<RateLimitStatus> {
  // Admin and agent keys have their own, higher limit (docs/design.md §9): a console at work calls often.
  const limit = caller.apiKey.scope !== "chat" ? dependencies.settings.adminKeyRequestsPerMinute : dependencies.settings.keyRequestsPerMinute;
  const decision = await dependencies.rateLimiter.hit(`key:${caller.apiKey.id}`, limit, 60_000);
  const status: RateLimitStatus = {
    limit,
    remaining: decision.remaining,
    resetSeconds: Math.ceil(decision.resetMs / 1000),
  };
  if (!decision.allowed) throw rateLimited(status, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return status;
}
