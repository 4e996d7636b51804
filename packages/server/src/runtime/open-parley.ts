import {
  createDerivedWebhookSecrets,
  createLocalEmbedder,
  createParley,
  type Embedder,
  type Parley,
  type RateLimiter,
  type SearchIndex,
  type Storage,
  type WebhookDispatcher,
  type WebhookSecrets,
} from "@parley/core";
import { createChatModels, createRemoteEmbedder } from "@parley/providers";
import { createSqliteSearchIndex, createSqliteStorage, openDatabase, schemaVersion, type SqliteSearchIndex } from "@parley/sqlite";
import type { Database } from "better-sqlite3";
import { consoleLog } from "../http/create-request-handler.js";
import type { ServerConfig } from "./config.js";
import { loadWebhookMasterKey } from "./webhook-master-key.js";

/** A Parley wired to its engines (SQLite, or PostgreSQL and Redis), and how to close it. */
export interface ParleyRuntime {
  /** Which engine holds the data: `sqlite` (PARLEY_DB) or `postgres` (PARLEY_DATABASE_URL). */
  engine: "sqlite" | "postgres";
  parley: Parley;
  embedder: Embedder;
  /** The signing secrets of webhook subscriptions, from the master key (loaded on first use). */
  webhookSecrets: WebhookSecrets;
  /** Webhook delivery; idle until `start()` (`parley serve` starts it, and stops it before closing). */
  dispatcher: WebhookDispatcher;
  searchIndex: SearchIndex;
  /** Reads the search index ahead while idle (SQLite's in-process postings; nothing to do on PostgreSQL). */
  warmUp(options?: { signal?: AbortSignal }): Promise<{ chatbots: number; words: number }>;
  /** How many users the database holds (the quickstart seeds only an empty one). */
  userCount(): Promise<number>;
  /** The schema version of each part of the database, as migrated on open. */
  schemaVersions(): Promise<Record<string, number>>;
  /** Configured secrets (provider API keys), for redaction from logs. */
  secrets: string[];
  close(): void | Promise<void>;
}

/** The embedded SQLite runtime, with its database handle. */
export interface SqliteRuntime extends ParleyRuntime {
  engine: "sqlite";
  database: Database;
  searchIndex: SqliteSearchIndex;
  close(): void;
}

/** The embedder the configuration names: the built-in `local` one, or a model behind a provider. */
export function embedderFor(config: ServerConfig): Embedder {
  return config.embedder.kind === "local" ? createLocalEmbedder() : createRemoteEmbedder(config.embedder, config.env);
}

/** The core wired to the given engines, the configured embedder and all three providers. */
export function wireParley(config: ServerConfig, engines: { storage: Storage; searchIndex: SearchIndex; rateLimiter?: RateLimiter }) {
  const embedder = embedderFor(config);
  // Loaded on first use, so commands that never touch webhooks create no key file.
  const webhookSecrets = createDerivedWebhookSecrets(() => loadWebhookMasterKey(config));
  const parley = createParley({
    ...engines,
    embedder,
    chatModels: createChatModels({ env: config.env }),
    webhookSecrets,
    settings: {
      keyRequestsPerMinute: config.keyRequestsPerMinute,
      conversationMessagesPerMinute: config.conversationMessagesPerMinute,
    },
  });
  const secrets = [config.providers.openai.apiKey, config.providers.anthropic.apiKey, config.secretKey].filter((secret): secret is string => secret !== undefined);
  const dispatcher = parley.createWebhookDispatcher({ log: consoleLog });
  return { parley, embedder, webhookSecrets, dispatcher, secrets };
}

/**
 * Opens (creating and migrating) the SQLite database and wires the core to the SQLite storage
 * and search index. `openRuntime` picks PostgreSQL and Redis instead when configured.
 */
export function openParley(config: ServerConfig, options: { rateLimiter?: RateLimiter } = {}): SqliteRuntime {
  const database = openDatabase({ path: config.databasePath });
  const searchIndex = createSqliteSearchIndex({ database });
  const wired = wireParley(config, { storage: createSqliteStorage({ database }), searchIndex, ...options });
  return {
    engine: "sqlite",
    ...wired,
    database,
    searchIndex,
    warmUp: (warmUpOptions) => searchIndex.warmUp(warmUpOptions),
    userCount: async () => (database.prepare("SELECT count(*) AS users FROM users").get() as { users: number }).users,
    schemaVersions: async () => ({ sqlite: schemaVersion(database) }),
    close: () => database.close(),
  };
}
