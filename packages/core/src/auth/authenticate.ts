import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import type { RateLimitDecision, RateLimitHit } from "../ports/rate-limiter.js";
import { forbidden, rateLimited, unauthorized, type RateLimitStatus } from "../errors.js";
import { sha256Hex } from "../support/hash.js";

/** Every API key starts with this prefix, followed by 32 random bytes in base64url. */
export const API_KEY_PREFIX = "prl_";
const API_KEY_PATTERN = /^prl_[A-Za-z0-9_-]{43}$/;

/** The calling user of an API key, or `unauthorized` for a missing, malformed, unknown or revoked key. */
export async function authenticate(dependencies: Pick<Dependencies, "storage" | "clock">, apiKey: string | undefined | null): Promise<Caller> {
  // A malformed key never reaches the database.
  if (!isWellFormedApiKey(apiKey)) throw unauthorized();
  return callerOfKey(dependencies, await dependencies.storage.findApiKeyByHash(sha256Hex(apiKey)));
}

/** Whether a value has the shape of an API key (a malformed one is refused before any read). */
export function isWellFormedApiKey(apiKey: string | undefined | null): apiKey is string {
  return typeof apiKey === "string" && API_KEY_PATTERN.test(apiKey);
}

/** The caller of a key as read by its hash; `unauthorized` for an unknown or revoked key. Records its use, to the minute. */
export async function callerOfKey(dependencies: Pick<Dependencies, "storage" | "clock">, found: { apiKey: Caller["apiKey"]; user: Caller["user"] } | null): Promise<Caller> {
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

/** Refuses a caller whose key may not chat (docs/design.md §16): agent keys answer conversations, they do not send to chatbots. */
export function requireChatScope(caller: Caller): void {
  if (caller.apiKey.scope === "agent") throw forbidden(AGENT_SCOPE_REFUSAL);
}

/**
 * Counts one request against the caller's per-key limit (docs/design.md §4: N requests in any 60 s
 * window; every request let through counts, refused ones do not). Throws `rate_limited`.
 */
export async function admitRequest(dependencies: Pick<Dependencies, "rateLimiter" | "settings">, caller: Caller): Promise<RateLimitStatus> {
  const hit = keyLimit(dependencies, caller);
  return admitted(hit, await dependencies.rateLimiter.hit(hit.key, hit.limit, hit.windowMs));
}

/** The caller's per-key limit as a hit of the rate limiter. */
export function keyLimit(dependencies: Pick<Dependencies, "settings">, caller: Caller): RateLimitHit {
  // Admin and agent keys have their own, higher limit (docs/design.md §9): a console at work calls often.
  const limit = caller.apiKey.scope !== "chat" ? dependencies.settings.adminKeyRequestsPerMinute : dependencies.settings.keyRequestsPerMinute;
  return { key: `key:${caller.apiKey.id}`, limit, windowMs: 60_000 };
}

/** The per-key limit's status after `decision` (for the `RateLimit-*` headers); `rate_limited` when it refused. */
export function admitted(hit: RateLimitHit, decision: RateLimitDecision): RateLimitStatus {
  const status: RateLimitStatus = {
    limit: hit.limit,
    remaining: decision.remaining,
    resetSeconds: Math.ceil(decision.resetMs / 1000),
  };
  if (!decision.allowed) throw rateLimited(status, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
  return status;
}
