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

/** An API key as stored: never the key itself, only its SHA-256 hash. */
export interface ApiKey {
  id: string;
  userId: string;
  name: string;
  /** Hex SHA-256 of the full key text. */
  keyHash: string;
  createdAt: number;
  /** Revocation takes effect at once: a revoked key never authenticates again. */
  revokedAt: number | null;
}

/** Who is calling: the user an API key belongs to, and the key. */
export interface Caller {
  user: User;
  apiKey: ApiKey;
}
