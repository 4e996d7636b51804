import {
  createDerivedWebhookSecrets,
  createLocalEmbedder,
  createParley,
  type Embedder,
  type Parley,
  type IngestionRunner,
  type WebhookDispatcher,
  type WebhookSecrets,
} from "@parley/core";
import { createKnowledgeSources } from "@parley/knowledge";
import { createChatModels, createRemoteEmbedder } from "@parley/providers";
import { createSqliteSearchIndex, createSqliteStorage, openDatabase, type DatabaseFileModes, type SqliteSearchIndex } from "@parley/sqlite";
import type { Database } from "better-sqlite3";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleLog, type LogSink } from "../http/create-request-handler.js";
import type { ServerConfig } from "./config.js";
import { createWebhookUrlCheck } from "./webhook-url-check.js";
import { ensureWebhookMasterKey, loadWebhookMasterKey } from "./webhook-master-key.js";

/** A Parley on the embedded SQLite default, and how to close it. */
export interface ParleyRuntime {
  parley: Parley;
  database: Database;
  embedder: Embedder;
  /** The signing secrets of webhook subscriptions, from the master key (loaded on first use). */
  webhookSecrets: WebhookSecrets;
  /** Webhook delivery; idle until `start()` (`parley serve` starts it, and stops it before closing). */
  dispatcher: WebhookDispatcher;
  /** Background ingestions; idle until `start()` (`parley serve` starts it, and stops it before closing). */
  ingestions: IngestionRunner;
  /** The search index, for its warm-up after a start (`parley serve` runs it while idle). */
  searchIndex: SqliteSearchIndex;
  /** Where uploads are written (beside the database), and the largest file taken. */
  uploads: { folder: string; maxFileBytes: number };
  /** Configured secrets (provider API keys), for redaction from logs. */
  secrets: string[];
  close(): void;
}

/** The embedder the configuration names: the built-in `local` one, or a model behind a provider. */
export function embedderFor(config: ServerConfig): Embedder {
  return config.embedder.kind === "local" ? createLocalEmbedder() : createRemoteEmbedder(config.embedder, config.env);
}

/**
 * Opens (creating and migrating) the database and wires the core to the SQLite storage and
 * search index, the configured embedder and all three providers. `log` receives the warning
 * about database files other users could read, and the webhook dispatcher's lines.
 */
export function openParley(config: ServerConfig, options: { log?: LogSink } = {}): ParleyRuntime {
  const log = options.log ?? consoleLog;
  const database = openDatabase({ path: config.databasePath, onFileModes: (report) => logFileModes(log, report) });
  const embedder = embedderFor(config);
  // Loaded on first use, so commands that never touch webhooks create no key file.
  // Until the first subscription exists no secret depends on the key, so the first one made
  // over the API creates the key file as `parley webhook add` does; after that a missing file
  // is an error, never silently replaced (docs/operations.md, "Where the secret lives").
  const webhookSecrets = createDerivedWebhookSecrets(() => {
    if (database.prepare("SELECT 1 FROM webhook_subscriptions LIMIT 1").get() === undefined) ensureWebhookMasterKey(config);
    return loadWebhookMasterKey(config);
  });
  const searchIndex = createSqliteSearchIndex({ database });
  // Uploads wait beside the database, so an ingestion resumed after a restart still finds them.
  const uploads = { folder: `${config.databasePath === ":memory:" ? join(tmpdir(), "parley") : config.databasePath}.uploads`, maxFileBytes: config.maxUploadBytes };
  const knowledgeSources = createKnowledgeSources({ allowPrivateUrls: config.allowPrivateUrls, maxFileBytes: config.maxUploadBytes, uploadsFolder: uploads.folder });
  const parley = createParley({
    storage: createSqliteStorage({ database }),
    searchIndex,
    embedder,
    chatModels: createChatModels({ env: config.env }),
    webhookSecrets,
    knowledgeSources,
    // Webhooks made through the API go only to public addresses, unless the operator allows private ones.
    checkWebhookUrl: config.allowPrivateUrls ? undefined : createWebhookUrlCheck(),
    settings: {
      keyRequestsPerMinute: config.keyRequestsPerMinute,
      adminKeyRequestsPerMinute: config.adminKeyRequestsPerMinute,
      conversationMessagesPerMinute: config.conversationMessagesPerMinute,
    },
  });
  const secrets = [config.providers.openai.apiKey, config.providers.anthropic.apiKey, config.secretKey].filter((secret): secret is string => secret !== undefined);
  const dispatcher = parley.createWebhookDispatcher({ log });
  const ingestions = parley.createIngestionRunner({ log });
  return { parley, database, embedder, webhookSecrets, dispatcher, ingestions, searchIndex, uploads, secrets, close: () => database.close() };
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
