/** A plan names a monthly allowance of user messages. */
export interface Plan {
  name: string;
  /** Stored user-role messages a user of this plan may send per UTC calendar month. */
  monthlyMessages: number;
}

/** An account that owns chatbots and API keys. */
export interface User {
  id: string;
  email: string;
  planName: string;
  /** Overrides the plan's monthly limit for this user alone, when set. */
  monthlyMessagesOverride: number | null;
  createdAt: number;
}

/**
 * What a key may do: `chat` the three routes of the spec, `admin` those and the operator API
 * too, `agent` the conversations of the operator API only (a person who answers visitors).
 */
export type ApiKeyScope = "chat" | "admin" | "agent";

/** The scopes, for validation. */
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ["chat", "admin", "agent"];

/** An API key as stored: never the key itself, only its SHA-256 hash. */
export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  scope: ApiKeyScope;
  /** Hex SHA-256 of the full key text. */
  keyHash: string;
  createdAt: number;
  /** Revocation takes effect at once: a revoked key never authenticates again. */
  revokedAt: number | null;
  /** The last time the key authenticated a request, to the minute (see `authenticate`); null if never. */
  lastUsedAt: number | null;
}

/** Who is calling: the user an API key belongs to, and the key. */
export interface Caller {
  user: User;
  apiKey: ApiKey;
}
