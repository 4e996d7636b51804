import type { Migration } from "./migration.js";

/**
 * A team of agents (docs/design.md §16): the `agent` key scope, the agent's name on a reply,
 * why a conversation needs attention, read state per key, and the takeover timeline.
 *
 * SQLite cannot change a CHECK constraint in place, so `api_keys` is rebuilt with the wider
 * scope rule (no table references it). The attention reason of rows that already need
 * attention follows the rule of migration 5: an unanswered visitor message while the chatbot
 * had the conversation is a provider failure, anything else the fallback reply.
 */
export const agentsSchema: Migration = {
  version: 11,
  name: "agents",
  up(database) {
    database.exec(`
      CREATE TABLE api_keys_next (
        id TEXT NOT NULL PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        revoked_at INTEGER,
        scope TEXT NOT NULL DEFAULT 'chat' CHECK (scope IN ('chat', 'admin', 'agent')),
        last_used_at INTEGER
      ) STRICT;
      INSERT INTO api_keys_next (id, user_id, name, key_hash, created_at, revoked_at, scope, last_used_at)
        SELECT id, user_id, name, key_hash, created_at, revoked_at, scope, last_used_at FROM api_keys;
      DROP TABLE api_keys;
      ALTER TABLE api_keys_next RENAME TO api_keys;
      CREATE INDEX api_keys_by_user ON api_keys (user_id);

      ALTER TABLE messages ADD COLUMN agent_name TEXT;

      ALTER TABLE conversations ADD COLUMN attention_reason TEXT CHECK (attention_reason IN ('fallback', 'provider_failed'));
      UPDATE conversations SET attention_reason = CASE
          WHEN human_takeover = 0 AND (SELECT role FROM messages WHERE messages.conversation_id = conversations.id ORDER BY seq DESC LIMIT 1) = 'user'
            THEN 'provider_failed'
          ELSE 'fallback'
        END
        WHERE needs_attention = 1;

      -- The last message a key has read in a conversation, by its seq (the insertion order).
      -- api_key_id has no foreign key on purpose: a later rebuild of api_keys stays possible.
      CREATE TABLE conversation_reads (
        api_key_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        last_read_seq INTEGER NOT NULL,
        read_at INTEGER NOT NULL,
        PRIMARY KEY (api_key_id, conversation_id)
      ) STRICT, WITHOUT ROWID;

      CREATE TABLE conversation_events (
        seq INTEGER PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        type TEXT NOT NULL CHECK (type IN ('takeover_started', 'takeover_ended')),
        by_name TEXT,
        at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX conversation_events_by_conversation ON conversation_events (conversation_id, seq);
    `);
  },
};
