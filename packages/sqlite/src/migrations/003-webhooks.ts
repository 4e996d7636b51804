import type { Migration } from "./migration.js";

/**
 * Webhook deliveries, and subscriptions without a stored secret.
 *
 * The signing secret is derived from a master key kept outside the database (docs/operations.md,
 * "Webhooks"), so the `secret` column goes; `signing_key_id` names the key's public fingerprint.
 * Subscriptions written before this step get '' and are reported as a key mismatch until
 * re-created. `secure_delete` zeroes the pages the old table frees, so the dropped secrets do
 * not linger in the file.
 *
 * A delivery is one event for one subscription; its `id` is the `webhook-id` of every attempt.
 * `next_attempt_at` is set exactly while it is pending; `leased_until` while an attempt is in
 * flight. Deliveries outlive their subscription (no foreign key to it) as history.
 */
export const webhooksSchema: Migration = {
  version: 3,
  name: "webhooks",
  up(database) {
    const secureDelete = database.pragma("secure_delete", { simple: true }) as number;
    database.pragma("secure_delete = ON");
    try {
      database.exec(`
        -- Rebuilt rather than ALTER … DROP COLUMN: only freeing the old pages whole lets
        -- secure_delete zero every byte the secrets were ever written to.
        CREATE TABLE webhook_subscriptions_v3 (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          user_id TEXT NOT NULL REFERENCES users (id),
          url TEXT NOT NULL,
          chatbot_id TEXT REFERENCES chatbots (id),
          event_types TEXT NOT NULL CHECK (json_valid(event_types)),
          signing_key_id TEXT NOT NULL,
          created_at INTEGER NOT NULL
        ) STRICT;
        INSERT INTO webhook_subscriptions_v3 (seq, id, user_id, url, chatbot_id, event_types, signing_key_id, created_at)
          SELECT seq, id, user_id, url, chatbot_id, event_types, '', created_at FROM webhook_subscriptions;
        DROP TABLE webhook_subscriptions;
        ALTER TABLE webhook_subscriptions_v3 RENAME TO webhook_subscriptions;
        CREATE INDEX webhook_subscriptions_by_user ON webhook_subscriptions (user_id, created_at, seq);

        CREATE TABLE webhook_deliveries (
          seq INTEGER PRIMARY KEY,
          id TEXT NOT NULL UNIQUE,
          subscription_id TEXT NOT NULL,
          event_id TEXT NOT NULL REFERENCES outbox_events (id),
          event_type TEXT NOT NULL,
          status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
          attempts INTEGER NOT NULL CHECK (attempts >= 0),
          next_attempt_at INTEGER,
          leased_until INTEGER,
          last_attempt_at INTEGER,
          last_response_status INTEGER,
          last_error TEXT,
          created_at INTEGER NOT NULL,
          delivered_at INTEGER,
          CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
          -- Fan-out creates one delivery per (event, subscription), never two.
          UNIQUE (event_id, subscription_id)
        ) STRICT;
        -- Claims walk the pending deliveries by due time, never the delivered history.
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, seq) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (status, seq);
      `);
    } finally {
      database.pragma(`secure_delete = ${secureDelete ? "ON" : "OFF"}`);
    }
  },
};
