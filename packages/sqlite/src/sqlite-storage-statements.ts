import type { Database, RunResult } from "better-sqlite3";
import type { Conversation, Message, OutboxEvent } from "@parley/core";
import { API_KEY_COLUMNS, CHATBOT_COLUMNS, CONVERSATION_COLUMNS, MESSAGE_COLUMNS, MESSAGE_READ_COLUMNS, OUTBOX_COLUMNS, USER_COLUMNS, outboxEventToRow, type ApiKeyRow, type ChatbotRow, type ConversationRow, type MessageRow, type OutboxEventRow, type PlanRow, type UserRow } from "@parley/core/storage-rows";
import { sqliteRows } from "./sqlite-storage-rows.js";

type Arguments<Parameters> = Parameters extends unknown[] ? Parameters : [Parameters];

/**
 * The part of a better-sqlite3 statement the adapter uses. Declared here because the driver's
 * own statement type lives in a namespace that declaration files cannot name.
 */
export interface PreparedStatement<Parameters, Row> {
  run(...parameters: Arguments<Parameters>): RunResult;
  get(...parameters: Arguments<Parameters>): Row | undefined;
  all(...parameters: Arguments<Parameters>): Row[];
  /** The SQL text. */
  readonly source: string;
}

/**
 * `prepare` on `database`, typed: the statement's parameters and row as the caller declares them
 * (the driver's own statement type cannot be named here).
 */
export const typedPrepare =
  (database: Database) =>
  <Parameters extends unknown[] | object = unknown[], Row = unknown>(sql: string) =>
    database.prepare(sql) as unknown as PreparedStatement<Parameters, Row>;

/** Every statement of the storage adapter, prepared once per adapter. */
export type StorageStatements = ReturnType<typeof prepareStorageStatements>;

/** Prepares the storage adapter's statements on a migrated database. */
export function prepareStorageStatements(database: Database) {
  const prepare = typedPrepare(database);
  return {
    upsertPlan: prepare<PlanRow>(
      `INSERT INTO plans (name, monthly_messages) VALUES (@name, @monthly_messages)
       ON CONFLICT (name) DO UPDATE SET monthly_messages = excluded.monthly_messages`,
    ),
    insertPlanIfMissing: prepare<PlanRow>(
      "INSERT INTO plans (name, monthly_messages) VALUES (@name, @monthly_messages) ON CONFLICT (name) DO NOTHING",
    ),
    getPlan: prepare<[string], PlanRow>("SELECT name, monthly_messages FROM plans WHERE name = ?"),

    // A taken email is the one conflict expected here: DO NOTHING turns it into `changes = 0`
    // while any other constraint (a reused id, an unknown plan) still throws.
    insertUser: prepare<UserRow & { email_key: string }>(
      `INSERT INTO users (${USER_COLUMNS}, email_key)
       VALUES (@id, @email, @plan_name, @monthly_messages_override, @created_at, @email_key)
       ON CONFLICT (email_key) DO NOTHING`,
    ),
    getUser: prepare<[string], UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = ?`),
    listUsers: prepare<[], UserRow>(`SELECT ${USER_COLUMNS} FROM users ORDER BY created_at, id`),

    insertApiKey: prepare<ApiKeyRow>(
      `INSERT INTO api_keys (${API_KEY_COLUMNS}) VALUES (@id, @user_id, @name, @key_hash, @scope, @created_at, @revoked_at, @last_used_at)`,
    ),
    getApiKey: prepare<[string], ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE id = ?`),
    listApiKeys: prepare<[string], ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, id ASC`),
    touchApiKey: prepare<[number, string]>("UPDATE api_keys SET last_used_at = ? WHERE id = ?"),
    getApiKeyByHash: prepare<[string], ApiKeyRow>(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`),
    // coalesce keeps the first revocation time: revoking twice changes nothing.
    revokeApiKey: prepare<[number, string], ApiKeyRow>(
      `UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING ${API_KEY_COLUMNS}`,
    ),

    // Candidates for a clash with `base` or `base-N`: every live slug from `base` up to
    // `base.` ('.' sorts right after '-'), read through the partial slug index.
    liveSlugsFrom: prepare<{ owner_id: string; base: string }, { slug: string }>(
      `SELECT slug FROM chatbots
       WHERE owner_id = @owner_id AND deleted_at IS NULL AND slug >= @base AND slug < @base || '.'`,
    ),
    insertChatbot: prepare<ChatbotRow>(
      `INSERT INTO chatbots (${CHATBOT_COLUMNS}) VALUES (@id, @owner_id, @name, @slug, @provider, @model,
       @system_prompt, @fallback_message, @is_active, @created_at, @updated_at, @deleted_at, @widget, @widget_secret_nonce)`,
    ),
    getChatbot: prepare<[string], ChatbotRow>(`SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE id = ?`),
    listChatbots: prepare<[string], ChatbotRow>(
      `SELECT ${CHATBOT_COLUMNS} FROM chatbots WHERE owner_id = ? AND deleted_at IS NULL
       ORDER BY created_at DESC, id ASC`,
    ),
    updateChatbot: prepare<ChatbotRow>(
      `UPDATE chatbots SET name = @name, provider = @provider, model = @model, system_prompt = @system_prompt,
       fallback_message = @fallback_message, is_active = @is_active, updated_at = @updated_at, deleted_at = @deleted_at,
       widget = @widget, widget_secret_nonce = @widget_secret_nonce WHERE id = @id`,
    ),

    // The quota reservation, one statement: insert the month's counter at 1, or add 1 to it
    // only while it is below the limit. A row comes back exactly when a message was reserved.
    // (The `WHERE @limit > 0` also lets SQLite parse an UPSERT on INSERT … SELECT.)
    reserveMonthlyQuota: prepare<{ user_id: string; month: string; limit: number }, { used: number }>(
      `INSERT INTO monthly_usage (user_id, month, used) SELECT @user_id, @month, 1 WHERE @limit > 0
       ON CONFLICT (user_id, month) DO UPDATE SET used = used + 1 WHERE used < @limit
       RETURNING used`,
    ),
    getMonthlyUsage: prepare<[string, string], { used: number }>(
      "SELECT used FROM monthly_usage WHERE user_id = ? AND month = ?",
    ),

    findConversation: prepare<[string, string], ConversationRow>(
      `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = ? AND session_id = ?`,
    ),
    // The owner is copied from the chatbot, which never changes hands.
    insertConversation: prepare<ConversationRow>(
      `INSERT INTO conversations (${CONVERSATION_COLUMNS}, owner_id)
       VALUES (@id, @chatbot_id, @session_id, @human_takeover, @needs_attention, @attention_reason, @message_count, @created_at, @updated_at,
               (SELECT owner_id FROM chatbots WHERE id = @chatbot_id))`,
    ),
    setHumanTakeover: prepare<[number, number, string], ConversationRow>(
      `UPDATE conversations SET human_takeover = ?, updated_at = ? WHERE id = ? RETURNING ${CONVERSATION_COLUMNS}`,
    ),
    // A stored message is activity: it counts, and it moves the conversation up the inbox. A
    // reply (needs_attention not null) sets or clears the attention; a visitor message keeps it.
    countMessage: prepare<{ id: string; at: number; needs_attention: number | null }, ConversationRow>(
      `UPDATE conversations SET message_count = message_count + 1, updated_at = @at,
       needs_attention = coalesce(@needs_attention, needs_attention),
       attention_reason = CASE WHEN @needs_attention IS NULL THEN attention_reason WHEN @needs_attention = 1 THEN 'fallback' ELSE NULL END
       WHERE id = @id RETURNING ${CONVERSATION_COLUMNS}`,
    ),
    markNeedsAttention: prepare<[number, string]>(
      "UPDATE conversations SET needs_attention = 1, attention_reason = 'provider_failed', updated_at = max(updated_at, ?) WHERE id = ?",
    ),
    // A visitor message the chatbot left unanswered, with no takeover or hand-back since: a reply
    // cut off with its process. One slice of the conversations' rowids at a time (the adapter's loop).
    lastConversationRowid: prepare<[], { last: number | null }>("SELECT max(rowid) AS last FROM conversations"),
    markUnansweredConversations: prepare<{ before: number; at: number; from: number; to: number }>(
      `UPDATE conversations SET needs_attention = 1, attention_reason = 'provider_failed', updated_at = max(updated_at, @at)
       WHERE updated_at < @before AND id IN (SELECT conversations.id FROM conversations
         JOIN messages latest ON latest.seq = (SELECT max(seq) FROM messages WHERE messages.conversation_id = conversations.id)
         WHERE conversations.rowid > @from AND conversations.rowid <= @to
           AND conversations.needs_attention = 0 AND conversations.human_takeover = 0
           AND latest.role = 'user' AND latest.created_at < @before
           AND NOT EXISTS (SELECT 1 FROM conversation_events WHERE conversation_events.conversation_id = conversations.id AND conversation_events.at >= latest.created_at))`,
    ),

    insertMessage: prepare<MessageRow>(
      `INSERT INTO messages (${MESSAGE_COLUMNS}) VALUES (@id, @conversation_id, @role, @author, @content, @agent_name, @created_at, @sources)`,
    ),
    // Newest first so LIMIT keeps the most recent; the caller reverses to oldest first.
    recentMessages: prepare<[string, number], MessageRow>(
      `SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT CAST(? AS INTEGER)`,
    ),
    listMessages: prepare<[string], MessageRow>(
      `SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY seq`,
    ),

    insertOutboxEvent: prepare<OutboxEventRow>(
      `INSERT INTO outbox_events (${OUTBOX_COLUMNS}) VALUES (@id, @type, @user_id, @chatbot_id, @data, @created_at)`,
    ),
    listOutboxEvents: prepare<[number], OutboxEventRow>(`SELECT ${OUTBOX_COLUMNS} FROM outbox_events ORDER BY seq LIMIT CAST(? AS INTEGER)`),
  };
}

// Writes shared by several steps; each runs inside the calling step's transaction.

/** The first of `base`, `base-2`, `base-3`, … that none of the owner's live chatbots uses. */
export function firstFreeSlug(statements: StorageStatements, ownerId: string, base: string): string {
  const taken = new Set(statements.liveSlugsFrom.all({ owner_id: ownerId, base }).map((row) => row.slug));
  let slug = base;
  for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${base}-${suffix}`;
  return slug;
}

/** Stores a conversation and returns it. */
export function insertConversation(statements: StorageStatements, conversation: Conversation): Conversation {
  statements.insertConversation.run(sqliteRows.conversationToRow(conversation));
  return conversation;
}

/** Stores a message after every earlier one (its rowid is the insertion order) and returns it. */
export function insertMessage(statements: StorageStatements, message: Message): Message {
  statements.insertMessage.run(sqliteRows.messageToRow(message));
  return message;
}

/** Appends events to the outbox in the given order. */
export function insertOutboxEvents(statements: StorageStatements, events: readonly OutboxEvent[]): void {
  for (const event of events) statements.insertOutboxEvent.run(outboxEventToRow(event));
}
