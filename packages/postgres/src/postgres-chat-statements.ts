import { CONVERSATION_COLUMNS, MESSAGE_COLUMNS, OUTBOX_COLUMNS } from "./postgres-storage-rows.js";

// The statements of a chat's two write steps, each doing in one round trip what used to take
// several (docs/scaling.md, "Round trips of a chat"): still one transaction per step.

export const CHAT_SQL = {
  /**
   * Reserves one message of the month's quota and, only when that succeeded, counts the message
   * in the conversation of (chatbot, session), creating it if new. The upsert locks the
   * conversation's row for the rest of the transaction, as the separate lock did. `used` is null
   * when the quota is used up (and nothing was written); `created` tells a new conversation
   * (an inserted row has no xmax).
   */
  reserveAndCount: `WITH reserved AS (
      INSERT INTO monthly_usage AS usage (user_id, month, used) SELECT $1, $2, 1 WHERE $3::bigint > 0
      ON CONFLICT (user_id, month) DO UPDATE SET used = usage.used + 1 WHERE usage.used < $3::bigint
      RETURNING used
    ), counted AS (
      INSERT INTO conversations (${CONVERSATION_COLUMNS}, owner_id)
      SELECT $4, $5, $6, false, false, 1, $7, $7, (SELECT owner_id FROM chatbots WHERE id = $5) WHERE EXISTS (SELECT 1 FROM reserved)
      ON CONFLICT (chatbot_id, session_id) DO UPDATE SET message_count = conversations.message_count + 1, updated_at = excluded.updated_at
      RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created
    )
    SELECT (SELECT used FROM reserved) AS used, counted.* FROM (SELECT 1) AS one LEFT JOIN counted ON true`,
  /** Stores a message and counts it in its conversation (activity, count, maybe the attention flag); the conversation after. */
  insertAndCount: `WITH stored AS (INSERT INTO messages (${MESSAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6))
    UPDATE conversations SET message_count = message_count + 1, updated_at = $6, needs_attention = coalesce($7, needs_attention)
    WHERE id = $2 RETURNING ${CONVERSATION_COLUMNS}`,
  /** Stores a message and its outbox events in one statement; the events' seq follows their order. */
  insertWithEvents: `WITH stored AS (INSERT INTO messages (${MESSAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6))
    INSERT INTO outbox_events (${OUTBOX_COLUMNS})
    SELECT id, type, user_id, chatbot_id, data, created_at
    FROM unnest($7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bigint[]) WITH ORDINALITY AS e (id, type, user_id, chatbot_id, data, created_at, position)
    ORDER BY position`,
  /** Outbox events, in order, in one statement. */
  insertEvents: `INSERT INTO outbox_events (${OUTBOX_COLUMNS})
    SELECT id, type, user_id, chatbot_id, data, created_at
    FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) WITH ORDINALITY AS e (id, type, user_id, chatbot_id, data, created_at, position)
    ORDER BY position`,
} as const;
