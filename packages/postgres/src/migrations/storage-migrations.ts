import type { PostgresMigration } from "./postgres-migration.js";

/**
 * Users, plans, keys, chatbots, conversations, messages, usage, outbox, webhooks, ingestions:
 * the schema of SQLite's migrations 001, 003 and 005 in PostgreSQL's types. Times are BIGINT microseconds since the
 * Unix epoch (UTC). Tables whose order matters carry a `seq` identity, so insertion order
 * survives equal timestamps. Text columns are TEXT; PostgreSQL cannot store NUL in TEXT, so
 * the adapter escapes it (postgres-text.ts).
 */
const storage: PostgresMigration = {
  version: 1,
  name: "storage",
  async up(client) {
    await client.query(`
      CREATE TABLE plans (
        name TEXT NOT NULL PRIMARY KEY,
        monthly_messages BIGINT NOT NULL CHECK (monthly_messages >= 0)
      );
      -- email_key is the lower-cased email: uniqueness is case-insensitive.
      CREATE TABLE users (
        id TEXT NOT NULL PRIMARY KEY,
        email TEXT NOT NULL,
        email_key TEXT NOT NULL UNIQUE,
        plan_name TEXT NOT NULL REFERENCES plans (name) ON UPDATE CASCADE,
        monthly_messages_override BIGINT CHECK (monthly_messages_override >= 0),
        created_at BIGINT NOT NULL
      );
      CREATE TABLE api_keys (
        id TEXT NOT NULL PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users (id),
        name TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        scope TEXT NOT NULL DEFAULT 'chat' CHECK (scope IN ('chat', 'admin')),
        created_at BIGINT NOT NULL,
        revoked_at BIGINT,
        last_used_at BIGINT
      );
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
        is_active BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        deleted_at BIGINT
      );
      CREATE INDEX chatbots_by_owner ON chatbots (owner_id, created_at DESC, id);
      CREATE UNIQUE INDEX chatbots_live_slug ON chatbots (owner_id, slug) WHERE deleted_at IS NULL;
      -- owner_id copies the chatbot's owner (which never changes), so one user's inbox is one
      -- index range, newest activity first.
      CREATE TABLE conversations (
        id TEXT NOT NULL PRIMARY KEY,
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        owner_id TEXT NOT NULL,
        session_id TEXT NOT NULL,
        human_takeover BOOLEAN NOT NULL,
        needs_attention BOOLEAN NOT NULL DEFAULT false,
        message_count BIGINT NOT NULL DEFAULT 0,
        created_at BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        UNIQUE (chatbot_id, session_id)
      );
      CREATE INDEX conversations_by_owner_activity ON conversations (owner_id, updated_at DESC, id);
      CREATE INDEX conversations_by_chatbot_activity ON conversations (chatbot_id, updated_at DESC, id);
      CREATE TABLE messages (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
        author TEXT NOT NULL CHECK (author IN ('end_user', 'model', 'agent')),
        content TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        CHECK ((role = 'user') = (author = 'end_user'))
      );
      CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
      -- The quota counter; the reservation is one conditional upsert on its primary key.
      CREATE TABLE monthly_usage (
        user_id TEXT NOT NULL REFERENCES users (id),
        month TEXT NOT NULL CHECK (month ~ '^[0-9]{4}-[0-1][0-9]$'),
        used BIGINT NOT NULL CHECK (used >= 0),
        PRIMARY KEY (user_id, month)
      );
      CREATE TABLE outbox_events (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        type TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users (id),
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        -- JSON as TEXT: JSONB cannot hold the NUL character, which a message (and so its event) may.
        data TEXT NOT NULL,
        created_at BIGINT NOT NULL,
        dispatched_at BIGINT
      );
      CREATE INDEX outbox_events_pending ON outbox_events (seq) WHERE dispatched_at IS NULL;
      CREATE INDEX outbox_events_by_user ON outbox_events (user_id, seq);
      CREATE TABLE webhook_subscriptions (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users (id),
        url TEXT NOT NULL,
        chatbot_id TEXT REFERENCES chatbots (id),
        event_types TEXT NOT NULL,
        signing_key_id TEXT NOT NULL,
        -- Made through the operator API: delivered only to public addresses (SQLite's 007).
        public_only BOOLEAN NOT NULL DEFAULT false,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX webhook_subscriptions_by_user ON webhook_subscriptions (user_id, created_at, seq);
      -- A delivery outlives its subscription (no foreign key to it), as history.
      CREATE TABLE webhook_deliveries (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        subscription_id TEXT NOT NULL,
        -- The subscription's user, so the delivery stays listed as theirs after it is removed.
        user_id TEXT NOT NULL,
        event_id TEXT NOT NULL REFERENCES outbox_events (id),
        event_type TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
        attempts INTEGER NOT NULL CHECK (attempts >= 0),
        next_attempt_at BIGINT,
        leased_until BIGINT,
        last_attempt_at BIGINT,
        last_response_status INTEGER,
        last_error TEXT,
        created_at BIGINT NOT NULL,
        delivered_at BIGINT,
        CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
        UNIQUE (event_id, subscription_id)
      );
      CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, seq) WHERE status = 'pending';
      CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (status, seq);
      CREATE INDEX webhook_deliveries_by_user ON webhook_deliveries (user_id, seq);
      CREATE TABLE ingestions (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL REFERENCES users (id),
        chatbot_id TEXT NOT NULL REFERENCES chatbots (id),
        status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
        request TEXT NOT NULL,
        documents_total BIGINT,
        documents_done BIGINT NOT NULL DEFAULT 0,
        chunks BIGINT NOT NULL DEFAULT 0,
        errors TEXT NOT NULL DEFAULT '[]',
        created_at BIGINT NOT NULL,
        started_at BIGINT,
        finished_at BIGINT,
        leased_until BIGINT,
        CHECK ((status = 'running') = (leased_until IS NOT NULL))
      );
      CREATE INDEX ingestions_open ON ingestions (status, seq) WHERE status IN ('queued', 'running');
    `);
  },
};

/**
 * A model reply remembers the documents its context came from, as SQLite's 008: a JSON array of
 * `{documentId, title, source, page}` (JSON escapes NUL, so TEXT holds it), `[]` otherwise.
 */
const messageSources: PostgresMigration = {
  version: 2,
  name: "message-sources",
  async up(client) {
    await client.query("ALTER TABLE messages ADD COLUMN sources TEXT NOT NULL DEFAULT '[]'");
  },
};

/**
 * Ingestions count their runs (`attempts`), so one whose runner keeps dying is given up, and the
 * claim shares runners between users through `ingestions_by_user` (SQLite's migration 009).
 */
const ingestionShares: PostgresMigration = {
  version: 3,
  name: "ingestion-shares",
  async up(client) {
    await client.query(`
      ALTER TABLE ingestions ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
      CREATE INDEX ingestions_by_user ON ingestions (user_id, started_at);
    `);
  },
};

/**
 * Uploaded files wait for their ingestion here, where every server process can read them
 * (docs/design.md, "Any PostgreSQL"). The triggers remove an upload when its ingestion ends,
 * however it ends, and when its chatbot is deleted, in the same transaction. The request is read
 * as `json`, not `jsonb`, which refuses the \u0000 a file name may hold.
 */
const uploads: PostgresMigration = {
  version: 4,
  name: "uploads",
  async up(client) {
    await client.query(`
      CREATE TABLE uploads (
        id TEXT NOT NULL PRIMARY KEY,
        chatbot_id TEXT NOT NULL,
        name TEXT NOT NULL,
        content BYTEA NOT NULL,
        created_at BIGINT NOT NULL
      );
      CREATE INDEX uploads_by_chatbot ON uploads (chatbot_id);
      CREATE FUNCTION parley_remove_ingestion_uploads() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM uploads WHERE id IN (SELECT file ->> 'upload' FROM json_array_elements(coalesce(NEW.request::json -> 'files', '[]'::json)) AS file);
        RETURN NULL;
      END $$;
      CREATE TRIGGER uploads_of_ended_ingestion AFTER UPDATE OF status ON ingestions FOR EACH ROW
        WHEN (NEW.status IN ('succeeded', 'failed') AND OLD.status IS DISTINCT FROM NEW.status)
        EXECUTE FUNCTION parley_remove_ingestion_uploads();
      CREATE FUNCTION parley_remove_chatbot_uploads() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM uploads WHERE chatbot_id = NEW.id;
        RETURN NULL;
      END $$;
      CREATE TRIGGER uploads_of_deleted_chatbot AFTER UPDATE OF deleted_at ON chatbots FOR EACH ROW
        WHEN (NEW.deleted_at IS NOT NULL)
        EXECUTE FUNCTION parley_remove_chatbot_uploads();
    `);
  },
};

/**
 * A team of agents (docs/design.md §16): the `agent` key scope, the agent's name on a reply,
 * why a conversation needs attention (existing rows by the rule of SQLite's migration 5: an
 * unanswered visitor message while the chatbot had it is a provider failure, else the
 * fallback), read state per key, and the takeover timeline. SQLite's migration 11.
 */
const agents: PostgresMigration = {
  version: 5,
  name: "agents",
  async up(client) {
    await client.query(`
      ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('chat', 'admin', 'agent'));
      ALTER TABLE messages ADD COLUMN agent_name TEXT;
      ALTER TABLE conversations ADD COLUMN attention_reason TEXT CHECK (attention_reason IN ('fallback', 'provider_failed'));
      UPDATE conversations SET attention_reason = CASE
          WHEN NOT human_takeover AND (SELECT role FROM messages WHERE messages.conversation_id = conversations.id ORDER BY seq DESC LIMIT 1) = 'user'
            THEN 'provider_failed'
          ELSE 'fallback'
        END
        WHERE needs_attention;
      -- The last message a key has read in a conversation, by its seq (the insertion order).
      -- api_key_id has no foreign key, as in SQLite (where it keeps a rebuild of api_keys possible).
      CREATE TABLE conversation_reads (
        api_key_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        last_read_seq BIGINT NOT NULL,
        read_at BIGINT NOT NULL,
        PRIMARY KEY (api_key_id, conversation_id)
      );
      CREATE TABLE conversation_events (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        conversation_id TEXT NOT NULL REFERENCES conversations (id),
        type TEXT NOT NULL CHECK (type IN ('takeover_started', 'takeover_ended')),
        by_name TEXT,
        at BIGINT NOT NULL
      );
      CREATE INDEX conversation_events_by_conversation ON conversation_events (conversation_id, seq);
    `);
  },
};

/**
 * The chat widget and feedback (docs/design.md §14), SQLite's migration 12: a chatbot's widget
 * settings as a JSON object in TEXT (`{}` reads as the defaults: off; JSON escapes NUL), the
 * nonce its identity secret is derived from (never the secret), and a model reply's rating with
 * its optional comment and time; the partial index serves the usage's feedback counts.
 */
const widget: PostgresMigration = {
  version: 6,
  name: "widget",
  async up(client) {
    await client.query(`
      ALTER TABLE chatbots ADD COLUMN widget TEXT NOT NULL DEFAULT '{}';
      ALTER TABLE chatbots ADD COLUMN widget_secret_nonce TEXT;
      ALTER TABLE messages ADD COLUMN feedback_rating TEXT CHECK (feedback_rating IN ('up', 'down'));
      ALTER TABLE messages ADD COLUMN feedback_comment TEXT;
      ALTER TABLE messages ADD COLUMN feedback_at BIGINT;
      CREATE INDEX messages_rated ON messages (feedback_at) WHERE feedback_rating IS NOT NULL;
    `);
  },
};

/**
 * A user's month of usage in stripes (docs/scaling.md, "One user's quota, in stripes"): each
 * stripe row counts the messages reserved on it (`used`) up to its share of the limit
 * (`allowance`), handed out for the limit `basis`. A chat reserves on one stripe, so one user's
 * chats no longer queue on one row; the stripes are shared out again under a lock of them all
 * when one runs out. Existing rows become stripe 0 with no share (basis -1 matches no limit), so
 * the first reservation after the migration shares the month out.
 */
const usageStripes: PostgresMigration = {
  version: 7,
  name: "usage stripes",
  async up(client) {
    await client.query(`
      ALTER TABLE monthly_usage ADD COLUMN stripe SMALLINT NOT NULL DEFAULT 0 CHECK (stripe >= 0);
      ALTER TABLE monthly_usage ADD COLUMN allowance BIGINT NOT NULL DEFAULT 0;
      ALTER TABLE monthly_usage ADD COLUMN basis BIGINT NOT NULL DEFAULT -1;
      ALTER TABLE monthly_usage DROP CONSTRAINT monthly_usage_pkey;
      ALTER TABLE monthly_usage ADD PRIMARY KEY (user_id, month, stripe);
    `);
  },
};

/** The storage track, in order. Append only. */
export const STORAGE_MIGRATIONS: readonly PostgresMigration[] = [storage, messageSources, ingestionShares, uploads, agents, widget, usageStripes];
