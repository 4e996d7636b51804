import { API_KEY_COLUMNS, CHATBOT_COLUMNS, CONVERSATION_COLUMNS, MESSAGE_COLUMNS, MESSAGE_READ_COLUMNS, OUTBOX_COLUMNS } from "@parley/core/storage-rows";
import { preparedStatements } from "./postgres-prepared.js";

// The statements of a chat's two write steps, each doing in one round trip what used to take
// several (docs/scaling.md, "Round trips of a chat"): still one transaction per step.

/** `$from, $from+1, …` for `count` parameters. */
const params = (from: number, count: number) => Array.from({ length: count }, (_, index) => `$${from + index}`).join(", ");

/** Stores the message in parameters $from–$from+7 only when the CTE `guard` has a row. */
const storeMessageIf = (from: number, guard: string) =>
  `INSERT INTO messages (${MESSAGE_COLUMNS}) SELECT ${params(from, 8)} WHERE EXISTS (SELECT 1 FROM ${guard})`;

/**
 * Stores outbox events, in order, given as one array per column in parameters $from–$from+5;
 * with a `guard`, only when that CTE has a row.
 */
const insertOutboxEvents = (from: number, guard?: string) => `INSERT INTO outbox_events (${OUTBOX_COLUMNS})
      SELECT id, type, user_id, chatbot_id, data, created_at
      FROM unnest($${from}::text[], $${from + 1}::text[], $${from + 2}::text[], $${from + 3}::text[], $${from + 4}::text[], $${from + 5}::bigint[]) WITH ORDINALITY AS e (id, type, user_id, chatbot_id, data, created_at, position)
      ${guard === undefined ? "" : `WHERE EXISTS (SELECT 1 FROM ${guard}) `}ORDER BY position`;

/**
 * One message reserved on stripe `stripe` of the user's month (when `condition`, if given, holds): only while
 * the stripe has a share left for this very limit (its `basis`), so the stripes' counts never add
 * up past the limit (docs/scaling.md, "One user's quota, in stripes"). Returns the stripe's count.
 */
const reserveOnStripe = (user: string, month: string, limit: string, stripe: string, condition?: string) =>
  `UPDATE monthly_usage AS usage SET used = usage.used + 1
      WHERE usage.user_id = ${user} AND usage.month = ${month} AND usage.stripe = ${stripe}::smallint AND usage.basis = ${limit}::bigint
        AND usage.used < usage.allowance${condition === undefined ? "" : ` AND ${condition}`}
      RETURNING used`;

export const CHAT_SQL = preparedStatements("chat", {
  /** What a chat checks before it accepts a message, in one statement: each part a JSON row (or null). */
  readChatState: `SELECT
      (SELECT row_to_json(b) FROM (SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE id = $1) b) AS chatbot,
      (SELECT row_to_json(p) FROM (SELECT name, monthly_messages FROM plans WHERE name = $2) p) AS plan,
      (SELECT coalesce(sum(used), 0)::bigint FROM monthly_usage WHERE user_id = $3 AND month = $4) AS used,
      (SELECT row_to_json(v) FROM (SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = $1 AND session_id = $5) v) AS conversation`,
  /**
   * The same, with the API key read by its hash ($1) and its user, as whom the rest is read: the
   * chatbot $2, the plan and month's usage ($3), and the conversation of session $4 (null: the
   * user's own, `api-<user id>`). A chat sent with a key: one round trip for all it checks.
   */
  readKeyedChatState: `WITH k AS (
      SELECT ${API_KEY_COLUMNS.split(", ").map((column) => `k.${column}`).join(", ")},
        u.email AS u_email, u.plan_name AS u_plan_name, u.monthly_messages_override AS u_monthly_messages_override, u.created_at AS u_created_at
      FROM api_keys AS k JOIN users AS u ON u.id = k.user_id WHERE k.key_hash = $1
    )
    SELECT
      (SELECT row_to_json(k) FROM k) AS key,
      (SELECT row_to_json(b) FROM (SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE id = $2 AND EXISTS (SELECT 1 FROM k)) b) AS chatbot,
      (SELECT row_to_json(p) FROM (SELECT name, monthly_messages FROM plans WHERE name = (SELECT u_plan_name FROM k)) p) AS plan,
      (SELECT coalesce(sum(used), 0)::bigint FROM monthly_usage WHERE user_id = (SELECT user_id FROM k) AND month = $3) AS used,
      (SELECT row_to_json(v) FROM (SELECT ${CONVERSATION_COLUMNS} FROM conversations
        WHERE chatbot_id = $2 AND session_id = coalesce($4, 'api-' || (SELECT user_id FROM k)) AND EXISTS (SELECT 1 FROM k)) v) AS conversation`,
  /**
   * Accepting a message into an existing conversation in one statement, applied only while the
   * conversation is still the one the events were built from ($3–$7: its id, count, takeover,
   * attention flag and reason; the row is locked first, so a concurrent step is waited for and
   * compared after it): the quota reserved on the usage stripe $26 (only then is anything
   * written), the conversation counted, the message and its events stored, and the history
   * before it read. Returns the conversation as it was before, whether the guard held, the
   * stripe's count when the quota was reserved (null: the stripe has no share left for the limit
   * $10, or has none yet; nothing written), and the history, oldest first.
   */
  acceptIntoConversation: `WITH current AS (
      SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = $1 AND session_id = $2 FOR UPDATE
    ), guarded AS (
      SELECT 1 FROM current WHERE id = $3 AND message_count = $4 AND human_takeover = $5 AND needs_attention = $6 AND attention_reason IS NOT DISTINCT FROM $7::text
    ), reserved AS (
      ${reserveOnStripe("$8", "$9", "$10", "$26", "EXISTS (SELECT 1 FROM guarded)")}
    ), counted AS (
      UPDATE conversations SET message_count = message_count + 1, updated_at = $18 WHERE id = $3 AND EXISTS (SELECT 1 FROM reserved)
    ), history AS (
      SELECT ${MESSAGE_READ_COLUMNS}, seq FROM messages WHERE conversation_id = $3 AND EXISTS (SELECT 1 FROM guarded) ORDER BY seq DESC LIMIT $11
    ), stored AS (
      ${storeMessageIf(12, "reserved")}
    ), events AS (
      ${insertOutboxEvents(20, "reserved")}
    )
    SELECT ${CONVERSATION_COLUMNS}, EXISTS (SELECT 1 FROM guarded) AS applied, (SELECT used FROM reserved) AS used,
      (SELECT coalesce(json_agg(h ORDER BY h.seq), '[]') FROM history h) AS history
    FROM current`,
  /**
   * Counts the message in the conversation of (chatbot, session), creating it if new. The upsert
   * locks the conversation's row for the rest of the transaction, as a separate lock did.
   * `created` tells a new conversation (an inserted row has no xmax).
   */
  countInConversation: `INSERT INTO conversations (${CONVERSATION_COLUMNS}, owner_id)
    VALUES ($1, $2, $3, false, false, NULL, 1, $4, $4, (SELECT owner_id FROM chatbots WHERE id = $2))
    ON CONFLICT (chatbot_id, session_id) DO UPDATE SET message_count = conversations.message_count + 1, updated_at = excluded.updated_at
    RETURNING ${CONVERSATION_COLUMNS}, (xmax = 0) AS created`,
  /**
   * Reserves one message of the month's quota on the usage stripe $18 and, only when that
   * succeeded, stores the message and its events (in order): no row when the stripe has no share
   * left. The last statement of the step, after the stripes were shared out under their lock
   * (`USAGE_SQL`).
   */
  reserveAndStore: `WITH reserved AS (
      ${reserveOnStripe("$1", "$2", "$3", "$18")}
    ), stored AS (
      ${storeMessageIf(4, "reserved")}
    ), events AS (
      ${insertOutboxEvents(12, "reserved")}
    )
    SELECT used FROM reserved`,
  /**
   * Stores a message and counts it in its conversation: activity, count, and — for a reply ($9
   * not null) — the attention flag and its reason; a visitor message keeps them. The
   * conversation after.
   */
  insertAndCount: `WITH stored AS (INSERT INTO messages (${MESSAGE_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8))
    UPDATE conversations SET message_count = message_count + 1, updated_at = $7,
      needs_attention = coalesce($9::boolean, needs_attention),
      attention_reason = CASE WHEN $9::boolean IS NULL THEN attention_reason WHEN $9::boolean THEN 'fallback' ELSE NULL END
    WHERE id = $2 RETURNING ${CONVERSATION_COLUMNS}`,
  /**
   * A reply in one statement: the message, its count in the conversation (as `insertAndCount`)
   * and its events, applied only while the conversation is still the one the events were built
   * from ($10–$13: its count, takeover, attention flag and reason; the row is locked first, so
   * a concurrent step is waited for and compared after it). Returns the conversation as it was
   * before, and whether the step applied: when it did not, nothing was written and the row
   * returned is the one to build the step from again.
   */
  storeReply: `WITH current AS (
      SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $2 FOR UPDATE
    ), guarded AS (
      SELECT 1 FROM current WHERE message_count = $10 AND human_takeover = $11 AND needs_attention = $12 AND attention_reason IS NOT DISTINCT FROM $13::text
    ), stored AS (
      ${storeMessageIf(1, "guarded")}
    ), counted AS (
      UPDATE conversations SET message_count = message_count + 1, updated_at = $7,
        needs_attention = coalesce($9::boolean, needs_attention),
        attention_reason = CASE WHEN $9::boolean IS NULL THEN attention_reason WHEN $9::boolean THEN 'fallback' ELSE NULL END
      WHERE id = $2 AND EXISTS (SELECT 1 FROM guarded)
    ), events AS (
      ${insertOutboxEvents(14, "guarded")}
    )
    SELECT ${CONVERSATION_COLUMNS}, EXISTS (SELECT 1 FROM guarded) AS applied FROM current`,
  /** Outbox events, in order, in one statement. */
  insertEvents: insertOutboxEvents(1),
});
