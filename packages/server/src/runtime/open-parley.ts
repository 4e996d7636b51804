import {
  createDerivedWebhookSecrets,
  createVisitorTokens,
  createDerivedWidgetSecrets,
  createLocalEmbedder,
  createParley,
  type Embedder,
  type IngestionRunner,
  type Parley,
  type RateLimiter,
  type SearchIndex,
  type Storage,
  type UnansweredWatch,
  type UploadStore,
  type WebhookDispatcher,
  type WebhookSecrets,
} from "@parley/core";
import { createKnowledgeSources } from "@parley/knowledge";
import { createChatModels, createRemoteEmbedder } from "@parley/providers";
import { createSqliteSearchIndex, createSqliteStorage, createSqliteUploadStore, openDatabase, schemaVersion, startWalCheckpointer, type WalCheckpointer, type DatabaseFileModes, type SqliteSearchIndex } from "@parley/sqlite";
import type { Database } from "better-sqlite3";
import { consoleLog, type LogSink } from "../http/log-lines.js";
import type { Uploads } from "../http/endpoint.js";
import type { ServerConfig } from "./config.js";
import { createPinnedFetch } from "./pinned-fetch.js";
import { createWebhookUrlCheck } from "./webhook-url-check.js";
import { ensureWebhookMasterKey, loadWebhookMasterKey } from "./webhook-master-key.js";

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
  /** Background ingestions; idle until `start()` (`parley serve` starts it, and stops it before closing). */
  ingestions: IngestionRunner;
  /** Marks the conversations a stopped process left unanswered, once after `start()` (`parley serve` starts it, and stops it before closing). */
  unanswered: UnansweredWatch;
  searchIndex: SearchIndex;
  /** Where uploads wait for their ingestion (the database), the largest file taken and the largest request. */
  uploads: Uploads;
  /** Event streams one API key may hold open in this process (`PARLEY_MAX_STREAMS_PER_KEY`). */
  maxStreamsPerKey: number;
  /** `PARLEY_TRUST_PROXY`: the widget's limits count the first `X-Forwarded-For` hop, not the socket's address. */
  trustProxy: boolean;
  /** Reads the search index ahead while idle (SQLite's in-process postings; nothing to do on PostgreSQL). */
  warmUp(options?: { signal?: AbortSignal }): Promise<{ chatbots: number; words: number }>;
  /**
   * Called as each HTTP request starts: SQLite's read cache then checks other connections'
   * commits once for the request's reads, not once for each (sqlite-storage-read-cache.ts).
   */
  requestStarted?(): void;
  /** How many users the database holds (the quickstart seeds only an empty one). */
  userCount(): Promise<number>;
  /** The schema version of each part of the database, as migrated on open. */
  schemaVersions(): Promise<Record<string, number>>;
  /** PostgreSQL only: copies a SQLite database's data into this (empty) one (`parley migrate --from`). */
  copyFromSqlite?(path: string): Promise<Record<string, number>>;
  /** PostgreSQL only: where its vectors are searched, as the database records it now. */
  vectors?(): Promise<"pgvector" | "in-process">;
  /** PostgreSQL only: moves in-process vectors to pgvector (`parley migrate --vectors pgvector`); null when already there. */
  moveToPgvector?(): Promise<{ moved: number } | null>;
  /** Configured secrets (provider API keys), for redaction from logs. */
  secrets: string[];
  /**
   * For a server: moves the database's routine maintenance off the event loop (SQLite's WAL
   * checkpoints to a worker thread); returns what stops it, before `close`. Absent where the
   * database server does it (PostgreSQL).
   */
  startMaintenance?(log: LogSink): () => Promise<void>;
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
export function wireParley(
  config: ServerConfig,
  engines: { storage: Storage; searchIndex: SearchIndex; uploads: UploadStore; rateLimiter?: RateLimiter },
  options: { log?: LogSink; masterKey?: () => Uint8Array } = {},
) {
  const log = options.log ?? consoleLog;
  const masterKey = options.masterKey ?? (() => loadWebhookMasterKey(config));
  const embedder = embedderFor(config);
  // Loaded on first use, so commands that never touch webhooks create no key file.
  const webhookSecrets = createDerivedWebhookSecrets(masterKey);
  // The widget's identity secrets come from the same master key (docs/design.md §14).
  const widgetSecrets = createDerivedWidgetSecrets(masterKey);
  // Uploads wait in the database, so any process (and a run resumed after a restart) reads them.
  const uploads: Uploads = { store: engines.uploads, maxFileBytes: config.maxUploadBytes, maxRequestBytes: config.maxUploadRequestBytes };
  const { timeoutMs, memoryMb, ...limits } = config.documents;
  const knowledgeSources = createKnowledgeSources({
    allowPrivateUrls: config.allowPrivateUrls,
    maxFileBytes: config.maxUploadBytes,
    uploads: engines.uploads,
    documents: { timeoutMs, memoryMb, limits },
  });
  const parley = createParley({
    ...engines,
    embedder,
    chatModels: createChatModels({ env: config.env }),
    webhookSecrets,
    // Visitor tokens are signed with a key derived from the same master key (docs/design.md §14).
    visitorTokens: createVisitorTokens(masterKey),
    widgetSecrets,
    knowledgeSources,
    // Webhooks made through the API go only to public addresses, unless the operator allows private ones.
    checkWebhookUrl: config.allowPrivateUrls ? undefined : createWebhookUrlCheck(),
    settings: {
      keyRequestsPerMinute: config.keyRequestsPerMinute,
      adminKeyRequestsPerMinute: config.adminKeyRequestsPerMinute,
      conversationMessagesPerMinute: config.conversationMessagesPerMinute,
      widgetSessionsPerHour: config.widgetSessionsPerHour,
      widgetMessagesPerMinute: config.widgetMessagesPerMinute,
    },
  });
  const secrets = [config.providers.openai.apiKey, config.providers.anthropic.apiKey, config.secretKey].filter((secret): secret is string => secret !== undefined);
  // The API's webhooks connect only to the public address their own lookup found (no DNS rebinding).
  const dispatcher = parley.createWebhookDispatcher({ log, ...(config.allowPrivateUrls ? {} : { fetchPublic: createPinnedFetch() }) });
  const ingestions = parley.createIngestionRunner({ log, perUser: config.ingestionsPerUser });
  const unanswered = parley.createUnansweredWatch({ afterMs: config.unansweredAfterMs, log });
  return { parley, embedder, webhookSecrets, dispatcher, ingestions, unanswered, uploads, secrets, maxStreamsPerKey: config.maxStreamsPerKey, trustProxy: config.trustProxy };
}

/** How long after the server's start its checkpoints move to a worker thread. */
const CHECKPOINTER_DELAY_MS = 1000;

/**
 * Opens (creating and migrating) the SQLite database and wires the core to the SQLite storage
 * and search index. `openRuntime` picks PostgreSQL and Redis instead when configured. `log`
 * receives the warning about database files other users could read, and the webhook
 * dispatcher's lines.
 */
export function openParley(config: ServerConfig, options: { rateLimiter?: RateLimiter; log?: LogSink } = {}): SqliteRuntime {
  const log = options.log ?? consoleLog;
  const database = openDatabase({ path: config.databasePath, onFileModes: (report) => logFileModes(log, report) });
  const searchIndex = createSqliteSearchIndex({ database });
  const storage = createSqliteStorage({ database });
  const engines = { storage, searchIndex, uploads: createSqliteUploadStore(database), ...(options.rateLimiter === undefined ? {} : { rateLimiter: options.rateLimiter }) };
  // Until the first subscription or widget secret exists no secret depends on the key, so the
  // first one made over the API creates the key file as `parley webhook add` does; after that a
  // missing file is an error, never silently replaced (docs/operations.md, "Where the secret lives").
  const masterKey = () => {
    const secretsExist = database.prepare("SELECT 1 FROM webhook_subscriptions UNION ALL SELECT 1 FROM chatbots WHERE widget_secret_nonce IS NOT NULL LIMIT 1").get() !== undefined;
    if (!secretsExist) ensureWebhookMasterKey(config);
    return loadWebhookMasterKey(config);
  };
  const wired = wireParley(config, engines, { log, masterKey });
  return {
    engine: "sqlite",
    ...wired,
    database,
    searchIndex,
    warmUp: (warmUpOptions) => searchIndex.warmUp(warmUpOptions),
    requestStarted: storage.requestStarted,
    userCount: async () => (database.prepare("SELECT count(*) AS users FROM users").get() as { users: number }).users,
    schemaVersions: async () => ({ sqlite: schemaVersion(database) }),
    startMaintenance(maintenanceLog) {
      // A second after the start, so that a fresh process answers its first requests without
      // sharing the machine with a new thread's start-up; until then SQLite checkpoints as usual.
      let checkpointer: WalCheckpointer | undefined;
      const starting = setTimeout(() => {
        checkpointer = startWalCheckpointer(database, {
          onError: (error) => maintenanceLog({ level: "error", event: "checkpointer_failed", error: error.message.split("\n")[0], detail: "Checkpoints are back on the server's own connection." }),
        });
      }, CHECKPOINTER_DELAY_MS);
      starting.unref();
      return async () => {
        clearTimeout(starting);
        await checkpointer?.stop();
      };
    },
    close: () => database.close(),
  };
}

/** One warning line for the files made owner-only, and one for those left as they were. */
function logFileModes(log: LogSink, report: DatabaseFileModes): void {
  if (report.tightened.length > 0) {
    log({
      level: "warn",
      event: "database_files_tightened",
      detail: "Other local users could read the database files; they are now owner-only (mode 0600).",
      files: report.tightened,
    });
  }
  if (report.untouched.length > 0) {
    log({
      level: "warn",
      event: "database_files_left_open",
      detail: "Other local users can read the database files, and only their owner may change that (chmod 600).",
      files: report.untouched,
    });
  }
}
