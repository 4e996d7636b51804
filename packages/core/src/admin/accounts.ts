import { API_KEY_SCOPES, type ApiKey, type ApiKeyScope, type Plan, type User } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { API_KEY_PREFIX } from "../auth/authenticate.js";
import { sha256Hex } from "../support/hash.js";

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;

function assertMonthlyMessages(value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw invalidRequest("monthly_messages: must be a whole number of 0 or more");
}

/** Creates or updates a plan. */
export async function setPlan(dependencies: Pick<Dependencies, "storage">, name: string, monthlyMessages: number): Promise<Plan> {
  if (name.trim() === "") throw invalidRequest("name: must be a non-empty string");
  assertMonthlyMessages(monthlyMessages);
  return dependencies.storage.upsertPlan({ name: name.trim(), monthlyMessages });
}

/**
 * Creates a user on a plan: the named one (which must exist), else the default plan (created
 * on first use). `monthlyMessages` overrides the plan's limit for this user alone.
 */
export async function createUser(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock" | "settings">,
  input: { email: string; plan?: string; monthlyMessages?: number },
): Promise<User> {
  const email = input.email.trim();
  if (!EMAIL_PATTERN.test(email)) throw invalidRequest("email: must be an email address");
  if (input.monthlyMessages !== undefined) assertMonthlyMessages(input.monthlyMessages);
  const plan =
    input.plan === undefined
      ? await dependencies.storage.ensurePlan(dependencies.settings.defaultPlan)
      : await dependencies.storage.getPlan(input.plan);
  if (!plan) throw notFound(`Plan ${input.plan}`);
  return dependencies.storage.createUser({
    id: dependencies.ids.uuid(),
    email,
    planName: plan.name,
    monthlyMessagesOverride: input.monthlyMessages ?? null,
    createdAt: dependencies.clock.now(),
  });
}

/** A user with their keys (revoked ones too, newest first), found by id or by email (any case). */
export async function showUser(dependencies: Pick<Dependencies, "storage">, idOrEmail: string): Promise<{ user: User; keys: ApiKey[] }> {
  const wanted = idOrEmail.trim().toLowerCase();
  const user = (await dependencies.storage.getUser(wanted)) ?? (await dependencies.storage.listUsers()).find((each) => each.email.toLowerCase() === wanted);
  if (!user) throw notFound(`User ${idOrEmail}`);
  return { user, keys: await dependencies.storage.listApiKeys(user.id) };
}

/** Issues an API key. The returned `key` is the only time the full key exists outside the caller. */
export async function createApiKey(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock">,
  input: { userId: string; name?: string; scope?: string },
): Promise<{ apiKey: ApiKey; key: string }> {
  if (input.scope !== undefined && !(API_KEY_SCOPES as readonly string[]).includes(input.scope)) {
    throw invalidRequest(`scope: must be one of ${API_KEY_SCOPES.join(", ")}`);
  }
  if (input.name !== undefined && input.name.length > 200) throw invalidRequest("name: must be at most 200 characters");
  // An agent's replies carry the key's name (docs/design.md §16): "default" would sign them all alike.
  if (input.scope === "agent" && !input.name?.trim()) throw invalidRequest("name: an agent key needs the agent's name");
  if (!(await dependencies.storage.getUser(input.userId))) throw notFound(`User ${input.userId}`);
  const key = `${API_KEY_PREFIX}${dependencies.ids.secret(32)}`;
  const apiKey = await dependencies.storage.createApiKey({
    id: dependencies.ids.uuid(),
    userId: input.userId,
    name: input.name?.trim() || "default",
    keyHash: sha256Hex(key),
    scope: (input.scope as ApiKeyScope | undefined) ?? "chat",
    createdAt: dependencies.clock.now(),
    revokedAt: null,
    lastUsedAt: null,
  });
  return { apiKey, key };
}

/** Revokes a key at once; revoking twice is harmless. */
export async function revokeApiKey(dependencies: Pick<Dependencies, "storage" | "clock" | "keyRevoked">, keyId: string): Promise<ApiKey> {
  const apiKey = await dependencies.storage.revokeApiKey(keyId, dependencies.clock.now());
  if (!apiKey) throw notFound(`API key ${keyId}`);
  dependencies.keyRevoked?.(apiKey.id);
  return apiKey;
}
