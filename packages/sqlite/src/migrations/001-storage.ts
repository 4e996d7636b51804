import type { Migration } from "./migration.js";

/**
 * Users, plans, keys, chatbots, conversations, messages, usage, outbox, webhooks.
 *
 * Every table is STRICT, so a value of the wrong type is an error instead of a silent
 * conversion. Times are integer microseconds since the Unix epoch (UTC). Booleans are 0/1
 * with a CHECK. Tables whose order matters (messages, outbox events, subscriptions) carry an
 * INTEGER PRIMARY KEY `seq`: the rowid, so insertion order survives equal timestamps.
 */
export const storageSchema: Migration = {
  version: 1,
  name: "storage",
  up(database) {
    database.exec(`
      CREATE TABLE plans (
        name TEXT NOT NULL PRIMARY KEY,
        monthly_messages INTEGER NOT NULL CHECK (monthly_messages >= 0)
      ) STRICT;

      -- email_key is the lower-cased email: uniqueness is case-insensitive for every script,
      -- which COLLATE NOCASE (ASCII only) would not give.
      CREATE TABLE users (
        id TEXT NOT NULL PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        plan_name TEXT NOT NULL REFERENCES plans (name) ON UPDATE CASCADE,
        monthly_messages_override INTEGER CHECK (monthly_messages_override >= 0),
        created_at INTEGER NOT NULL
      ) STRICT;

      -- Authentication looks keys up by hash on every request: key_hash is UNIQUE, hence indexed.
      CREATE TABLE api_keys (
        id TEXT NOT NULL PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER
      ) STRICT;
      CREATE INDEX api_keys_by_user ON api_keys (user_id);

      CREATE TABLE chatbots (
        id TEXT NOT NULL PRIMARY KEY,
        owner_id TEXT NOT NULL REFERENCES users (id),
        name TEXT NOT NULL,
        slug TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        system_prompt TEXT NOT NULL,
        fallback_message TEXT NOT NULL,
        is_active INTEGER NOT NULL CHECK (is_active IN (0, 1)),
        created_at INTEGER NOT NULL,
        deleted_at INTEGER
      ) STRICT;
      -- The list is the owner's chatbots newest first, ties by id: this index is that order.
      CREATE INDEX chatbots_by_owner ON chatbots (owner_id, created_at DESC, id);
      -- A slug is unique among the owner's live chatbots; deleting one frees its slug.
      CREATE UNIQUE INDEX chatbots_live_slug ON chatbots (owner_id, slug) WHERE deleted_at IS NULL;

      CREATE TABLE conversations (
        id TEXT NOT NULL PRIMARY KEY,
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        session_id TEXT NOT NULL,
        human_takeover INTEGER NOT NULL CHECK (human_takeover IN (0, 1)),
        created_at INTEGER NOT NULL,
        UNIQUE (chatbot_id, session_id)
      ) STRICT;

      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        author TEXT NOT NULL CHECK (author IN ('end_user', 'model', 'agent')),
        content TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        CHECK ((role = 'user') = (author = 'end_user'))
      ) STRICT;
      -- The history of a chat is the most recent messages of one conversation.
      CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);

      -- The quota counter: its primary key is the lookup, and the reservation is one UPSERT on it.
      CREATE TABLE monthly_usage (
        user_id TEXT NOT NULL REFERENCES users (id),
        month TEXT NOT NULL CHECK (month GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]'),
        used INTEGER NOT NULL CHECK (used >= 0),
        PRIMARY KEY (user_id, month)
      ) STRICT, WITHOUT ROWID;

      -- Written in the same transaction as the message that causes the event. dispatched_at
      -- is set by the webhook dispatcher once it has turned the event into deliveries; the
      -- partial index finds the pending ones, oldest first, without scanning delivered rows.
      CREATE TABLE outbox_events (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id),
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        data TEXT NOT NULL CHECK (json_valid(data)),
        created_at INTEGER NOT NULL,
        dispatched_at INTEGER
      ) STRICT;
      CREATE INDEX outbox_events_pending ON outbox_events (seq) WHERE dispatched_at IS NULL;

      CREATE TABLE webhook_subscriptions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users (id),
        url TEXT NOT NULL,
        chatbot_id TEXT REFERENCES chatbots (id),
        event_types TEXT NOT NULL CHECK (json_valid(event_types)),
        secret TEXT NOT NULL,
        created_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webhook_subscriptions_by_user ON webhook_subscriptions (user_id, created_at, seq);
    `);
  },
};
