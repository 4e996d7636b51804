import { createLocalEmbedder, createParley, type Embedder, type Parley } from "@parley/core";
import { createChatModels, createRemoteEmbedder } from "@parley/providers";
import { createSqliteSearchIndex, createSqliteStorage, openDatabase } from "@parley/sqlite";
import type { Database } from "better-sqlite3";
import type { ServerConfig } from "./config.js";

/** A Parley on the embedded SQLite default, and how to close it. */
export interface ParleyRuntime {
  parley: Parley;
  database: Database;
  embedder: Embedder;
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
 * search index, the configured embedder and all three providers.
 */
export function openParley(config: ServerConfig): ParleyRuntime {
  const database = openDatabase({ path: config.databasePath });
  const embedder = embedderFor(config);
  const parley = createParley({
    storage: createSqliteStorage({ database }),
    searchIndex: createSqliteSearchIndex({ database }),
    embedder,
    chatModels: createChatModels({ env: config.env }),
    settings: {
      keyRequestsPerMinute: config.keyRequestsPerMinute,
      conversationMessagesPerMinute: config.conversationMessagesPerMinute,
    },
  });
  const secrets = [config.providers.openai.apiKey, config.providers.anthropic.apiKey].filter((secret): secret is string => secret !== undefined);
  return { parley, database, embedder, secrets, close: () => database.close() };
}
