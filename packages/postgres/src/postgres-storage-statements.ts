import { API_KEY_COLUMNS, CHATBOT_COLUMNS, CONVERSATION_COLUMNS, MESSAGE_READ_COLUMNS, OUTBOX_COLUMNS, USER_COLUMNS } from "@parley/core/storage-rows";
import { preparedStatements } from "./postgres-prepared.js";

// The SQL of the PostgreSQL Storage adapter (accounts, chatbots, conversations, quota, outbox),
// gathered in one place; every value is a parameter.

export const STORAGE_SQL = preparedStatements("storage", {
  upsertPlan: "INSERT INTO plans (name, monthly_messages) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET monthly_messages = excluded.monthly_messages",
  insertPlanIfMissing: "INSERT INTO plans (name, monthly_messages) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
  getPlan: "SELECT name, monthly_messages FROM plans WHERE name = $1",

  // A taken email is the one conflict expected: DO NOTHING makes it rowCount 0, while any other
  // constraint (a reused id, an unknown plan) still throws.
  insertUser: `INSERT INTO users (${USER_COLUMNS}, email_key) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email_key) DO NOTHING`,
  getUser: `SELECT ${USER_COLUMNS} FROM users WHERE id = $1`,
  listUsers: `SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`,

  insertApiKey: `INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
  getApiKey: `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = $1`,
  listApiKeys: `SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = $1 ORDER BY created_at DESC, id ASC`,
  touchApiKey: "UPDATE api_keys SET last_used_at = $1 WHERE id = $2",
  // The key and its user in one statement, so both come from one snapshot.
  getApiKeyByHash: `SELECT ${API_KEY_COLUMNS.split(", ").map((column) => `k.${column}`).join(", ")},
      u.id AS u_id, u.email AS u_email, u.plan_name AS u_plan_name, u.monthly_messages_override AS u_monthly_messages_override, u.created_at AS u_created_at
    FROM api_keys AS k JOIN users AS u ON u.id = k.user_id WHERE k.key_hash = $1`,
  // coalesce keeps the first revocation time: revoking twice changes nothing.
  revokeApiKey: `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING ${API_KEY_COLUMNS}`,

  // Creating chatbots of one owner takes turns, so two at once never pick the same free slug.
  lockOwner: "SELECT pg_advisory_xact_lock(hashtextextended('parley-owner:' || $1, 0))",
  // Candidates for a clash with `base` or `base-N`: every live slug from `base` up to `base.`.
  liveSlugsFrom: "SELECT slug FROM chatbots WHERE owner_id = $1 AND deleted_at IS NULL AND slug >= $2 AND slug < $2 || '.'",
  insertChatbot: `INSERT INTO chatbots (${CHATBOT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
  getChatbot: `SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE id = $1`,
  lockChatbot: `SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE id = $1 FOR UPDATE`,
  listChatbots: `SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE owner_id = $1 AND deleted_at IS NULL ORDER BY created_at DESC, id ASC`,
  updateChatbot: `UPDATE chatbots SET name = $2, provider = $3, model = $4, system_prompt = $5, fallback_message = $6, is_active = $7,
    updated_at = $8, deleted_at = $9, widget = $10, widget_secret_nonce = $11 WHERE id = $1`,

  // A user's month of usage is kept in stripes (docs/scaling.md, "One user's quota, in
  // stripes"): the month's count is their sum. A chat reserves on one stripe within its share
  // (CHAT_SQL); when a stripe's share runs out, the stripes are locked in order and what is left
  // of the limit is shared out again (postgres-storage.ts, shareOutUsage).
  getMonthlyUsage: "SELECT coalesce(sum(used), 0)::bigint AS used FROM monthly_usage WHERE user_id = $1 AND month = $2",
  lockUsageStripes: "SELECT stripe, used FROM monthly_usage WHERE user_id = $1 AND month = $2 ORDER BY stripe FOR UPDATE",
  addUsageStripes: `INSERT INTO monthly_usage (user_id, month, stripe, used, allowance, basis)
    SELECT $1, $2, stripe, 0, 0, -1 FROM generate_series(0, $3::int - 1) AS stripe ON CONFLICT (user_id, month, stripe) DO NOTHING`,
  shareUsageStripes: `UPDATE monthly_usage AS usage SET allowance = shares.allowance, basis = $3
    FROM unnest($4::smallint[], $5::bigint[]) AS shares (stripe, allowance)
    WHERE usage.user_id = $1 AND usage.month = $2 AND usage.stripe = shares.stripe`,

  getConversationById: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE id = $1`,
  findConversation: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = $1 AND session_id = $2`,
  // Two first messages of one session at once: one inserts, the other finds it (no error). The
  // owner is copied from the chatbot, which never changes hands.
  insertConversation: `INSERT INTO conversations (${CONVERSATION_COLUMNS}, owner_id)
    VALUES ($1, $2, $3, $4, false, NULL, 0, $5, $5, (SELECT owner_id FROM chatbots WHERE id = $2))
    ON CONFLICT (chatbot_id, session_id) DO NOTHING RETURNING ${CONVERSATION_COLUMNS}`,
  // Locks the conversation for the step: its count and activity change one step at a time.
  lockConversation: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = $1 AND session_id = $2 FOR UPDATE`,
  setHumanTakeover: `UPDATE conversations SET human_takeover = $1, updated_at = $2 WHERE id = $3 RETURNING ${CONVERSATION_COLUMNS}`,
  markNeedsAttention: "UPDATE conversations SET needs_attention = true, attention_reason = 'provider_failed', updated_at = greatest(updated_at, $1) WHERE id = $2",
  // A visitor message the chatbot left unanswered, with no takeover or hand-back since: a reply cut off with its process.
  // `updated_at < $1` stands outside the subquery too, where PostgreSQL checks it again on a row a
  // concurrent step changed: a reply stored meanwhile moves the activity past the cut-off.
  markUnansweredConversations: `UPDATE conversations SET needs_attention = true, attention_reason = 'provider_failed', updated_at = greatest(updated_at, $2)
    WHERE updated_at < $1 AND id IN (SELECT conversations.id FROM conversations
      JOIN messages latest ON latest.seq = (SELECT max(seq) FROM messages WHERE messages.conversation_id = conversations.id)
      WHERE conversations.needs_attention = false AND conversations.human_takeover = false
        AND latest.role = 'user' AND latest.created_at < $1
        AND NOT EXISTS (SELECT 1 FROM conversation_events WHERE conversation_events.conversation_id = conversations.id AND conversation_events.at >= latest.created_at))`,

  // Newest first so LIMIT keeps the most recent; the caller reverses to oldest first.
  recentMessages: `SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT $2`,
  listMessages: `SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = $1 ORDER BY seq`,

  insertOutboxEvent: `INSERT INTO outbox_events (${OUTBOX_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`,
  listOutboxEvents: `SELECT ${OUTBOX_COLUMNS} FROM outbox_events ORDER BY seq LIMIT $1`,
});
