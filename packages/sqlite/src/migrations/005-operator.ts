import type { Migration } from "./migration.js";

/**
 * What the operator API needs (docs/design.md §9–§10): key scopes and last use, the chatbot's
 * last change, the conversation facts an inbox shows (owner, activity, message count, needs
 * attention) with their indexes, the outbox read per user, deliveries per user, and ingestions.
 * Existing rows are filled in from what the database already holds.
 */
export const operatorSchema: Migration = {
  version: 5,
  name: "operator",
  up(database) {
    database.exec(`
      ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'chat' CHECK (scope IN ('chat', 'admin'));
      ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

      ALTER TABLE chatbots ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
      UPDATE chatbots SET updated_at = created_at;

      -- owner_id copies the chatbot's owner (which never changes), so the inbox of one user is
      -- one index range, newest activity first.
      ALTER TABLE conversations ADD COLUMN owner_id TEXT NOT NULL DEFAULT '';
      ALTER TABLE conversations ADD COLUMN needs_attention INTEGER NOT NULL DEFAULT 0 CHECK (needs_attention IN (0, 1));
      ALTER TABLE conversations ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE conversations ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
      UPDATE conversations SET
        owner_id = (SELECT owner_id FROM chatbots WHERE chatbots.id = conversations.chatbot_id),
        message_count = (SELECT count(*) FROM messages WHERE messages.conversation_id = conversations.id),
        updated_at = max(created_at, coalesce((SELECT max(created_at) FROM messages WHERE messages.conversation_id = conversations.id), 0)),
        -- The rule of docs/design.md §9: the provider failed on the latest user message (stored,
        -- never answered, while the chatbot had the conversation), or the latest reply is the
        -- fallback message (a visitor writing again after it does not clear that).
        needs_attention = CASE
          WHEN human_takeover = 0 AND (SELECT role FROM messages WHERE messages.conversation_id = conversations.id ORDER BY seq DESC LIMIT 1) = 'user' THEN 1
          ELSE coalesce((
            SELECT messages.author = 'model' AND messages.content = chatbots.fallback_message
            FROM messages JOIN chatbots ON chatbots.id = conversations.chatbot_id
            WHERE messages.conversation_id = conversations.id AND messages.role = 'assistant' ORDER BY messages.seq DESC LIMIT 1), 0)
        END;
      CREATE INDEX conversations_by_owner_activity ON conversations (owner_id, updated_at DESC, id);
      CREATE INDEX conversations_by_chatbot_activity ON conversations (chatbot_id, updated_at DESC, id);

      -- A live stream resuming after an event reads that user's later events.
      CREATE INDEX outbox_events_by_user ON outbox_events (user_id, seq);

      -- A delivery keeps its subscription's user, so it stays listed (as that user's) after the
      -- subscription is removed.
      ALTER TABLE webhook_deliveries ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
      UPDATE webhook_deliveries SET user_id = coalesce(
        (SELECT user_id FROM webhook_subscriptions WHERE webhook_subscriptions.id = webhook_deliveries.subscription_id),
        (SELECT user_id FROM outbox_events WHERE outbox_events.id = webhook_deliveries.event_id));
      CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (user_id, seq);

      CREATE TABLE ingestions (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users (id),
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
        request TEXT NOT NULL CHECK (json_valid(request)),
        documents_total INTEGER,
        documents_done INTEGER NOT NULL DEFAULT 0,
        chunks INTEGER NOT NULL DEFAULT 0,
        errors TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(errors)),
        created_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        leased_until INTEGER,
        CHECK ((status = 'running') = (leased_until IS NOT NULL))
      ) STRICT;
      -- Runners claim the oldest queued ingestion, or a running one whose lease ended.
      CREATE INDEX ingestions_open ON ingestions (status, seq) WHERE status IN ('queued', 'running');
    `);
  },
};
