import type { OperatorStorage } from "@parley/core";
import { CONVERSATION_COLUMNS, INGESTION_COLUMNS, MESSAGE_READ_COLUMNS, OUTBOX_COLUMNS, ingestionFromRow, outboxEventFromRow, type ConversationSummaryRow, type IngestionRow, type MessageRow, type OutboxEventRow } from "@parley/core/storage-rows";
import type pg from "pg";
import { inTransaction } from "./postgres-transaction.js";
import { unreadMessagesOf } from "./postgres-agent-storage.js";
import { postgresRows } from "./postgres-storage-rows.js";

// The latest message of a conversation, read through messages_by_conversation (one probe).
const SUMMARY_COLUMNS = `${CONVERSATION_COLUMNS.split(", ").map((column) => `c.${column}`).join(", ")},
  m.id AS last_id, m.role AS last_role, m.author AS last_author, m.content AS last_content, m.agent_name AS last_agent_name, m.created_at AS last_created_at, m.sources AS last_sources,
  m.feedback_rating AS last_feedback_rating, m.feedback_comment AS last_feedback_comment, m.feedback_at AS last_feedback_at`;
const SUMMARY_FROM = `conversations c LEFT JOIN LATERAL (
  SELECT id, role, author, content, agent_name, created_at, sources, feedback_rating, feedback_comment, feedback_at FROM messages WHERE conversation_id = c.id ORDER BY seq DESC LIMIT 1) m ON true`;
// Every filter is a fixed fragment with bound values: no caller text ever becomes SQL.
const STATUS_FILTERS = { bot: "AND NOT c.human_takeover", human: "AND c.human_takeover", attention: "AND c.needs_attention" } as const;

const SQL = {
  summary: `SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM} WHERE c.id = $1`,
  list: (status: keyof typeof STATUS_FILTERS | undefined, byChatbot: boolean) => `SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM}
    WHERE ${byChatbot ? "c.chatbot_id = $6 AND " : ""}c.owner_id = $1
      AND (SELECT deleted_at FROM chatbots WHERE id = c.chatbot_id) IS NULL
      AND ($3::bigint IS NULL OR c.updated_at < $3 OR (c.updated_at = $3 AND c.id > $4))
      ${status === undefined ? "" : STATUS_FILTERS[status]}
      AND ($5::text IS NULL OR EXISTS (SELECT 1 ${unreadMessagesOf("c.id", "$5")}))
    ORDER BY c.updated_at DESC, c.id ASC LIMIT $2`,
  seqOfMessage: "SELECT seq FROM messages WHERE id = $1 AND conversation_id = $2",
  messagesAfter: `SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = $1 AND seq > $2 ORDER BY seq`,
  readOutbox: `SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE seq > $1 ORDER BY seq LIMIT $2`,
  readUserOutbox: `SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE user_id = $3 AND seq > $1 ORDER BY seq LIMIT $2`,
  outboxPosition: "SELECT seq FROM outbox_events WHERE id = $1",
  latestOutboxPosition: "SELECT coalesce(max(seq), 0) AS seq FROM outbox_events",
  usageByChatbot: `SELECT c.chatbot_id, count(*) AS messages FROM conversations c JOIN messages m ON m.conversation_id = c.id
    WHERE c.owner_id = $1 AND m.role = 'user' AND m.created_at >= $2 AND m.created_at < $3
    GROUP BY c.chatbot_id ORDER BY messages DESC, c.chatbot_id`,
  usageByDay: `SELECT to_char(to_timestamp(m.created_at / 1000000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, count(*) AS messages
    FROM conversations c JOIN messages m ON m.conversation_id = c.id
    WHERE c.owner_id = $1 AND m.role = 'user' AND m.created_at >= $2 AND m.created_at < $3
    GROUP BY date ORDER BY date`,
  insertIngestion: `INSERT INTO ingestions (${INGESTION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
  getIngestion: `SELECT ${INGESTION_COLUMNS} FROM ingestions WHERE id = $1`,
  // Claims take turns (a transaction-scoped advisory lock): the count of a user's live leases
  // must not change between reading it and taking one more, whichever process claims.
  lockClaims: "SELECT pg_advisory_xact_lock(hashtext('parley.ingestions.claim'))",
  // Fair between users (the Storage port's claimIngestion): live leases per user, then the
  // user served longest ago, then the oldest ingestion.
  nextIngestion: `SELECT id FROM (
      SELECT i.id, i.created_at, i.seq,
        (SELECT count(*) FROM ingestions r WHERE r.user_id = i.user_id AND r.status = 'running' AND r.leased_until > $1) AS live,
        coalesce((SELECT max(s.started_at) FROM ingestions s WHERE s.user_id = i.user_id), -1) AS last_start
      FROM ingestions i WHERE i.status = 'queued' OR (i.status = 'running' AND i.leased_until <= $1)) candidates
    WHERE live < $2 ORDER BY live, last_start, created_at, seq LIMIT 1`,
  startIngestion: `UPDATE ingestions SET status = 'running', started_at = $1, leased_until = $2, documents_total = NULL, documents_done = 0,
    chunks = 0, errors = '[]', attempts = attempts + 1 WHERE id = $3 RETURNING ${INGESTION_COLUMNS}`,
  updateIngestion: `UPDATE ingestions SET documents_total = $3, documents_done = $4, chunks = $5, errors = $6, leased_until = $7, status = $8, finished_at = $9
    WHERE id = $1 AND status = 'running' AND started_at = $2 RETURNING ${INGESTION_COLUMNS}`,
} as const;

/** Conversation lists, the outbox as a feed (for SSE on every process), usage and ingestions on PostgreSQL. */
export function createPostgresOperatorStorage(pool: pg.Pool): OperatorStorage {
  return {
    async getConversation(id) {
      const { rows } = await pool.query<ConversationSummaryRow>(SQL.summary, [id]);
      return rows[0] ? postgresRows.conversationSummaryFromRow(rows[0]) : null;
    },
    async listConversations(filter) {
      const values: unknown[] = [filter.ownerId, filter.limit, filter.after?.at ?? null, filter.after?.id ?? "", filter.unreadFor ?? null];
      if (filter.chatbotId !== undefined) values.push(filter.chatbotId);
      const { rows } = await pool.query<ConversationSummaryRow>(SQL.list(filter.status, filter.chatbotId !== undefined), values);
      return rows.map(postgresRows.conversationSummaryFromRow);
    },
    async listMessagesAfter(conversationId, afterMessageId) {
      const found = (await pool.query<{ seq: number }>(SQL.seqOfMessage, [afterMessageId, conversationId])).rows[0];
      if (!found) return null;
      return (await pool.query<MessageRow>(SQL.messagesAfter, [conversationId, found.seq])).rows.map(postgresRows.messageFromRow);
    },
    async readOutbox({ afterPosition, limit, userId }) {
      const { rows } =
        userId === undefined
          ? await pool.query<OutboxEventRow & { seq: number }>(SQL.readOutbox, [afterPosition, limit])
          : await pool.query<OutboxEventRow & { seq: number }>(SQL.readUserOutbox, [afterPosition, limit, userId]);
      return rows.map((row) => ({ position: row.seq, event: outboxEventFromRow(row) }));
    },
    async outboxPosition(eventId) {
      return (await pool.query<{ seq: number }>(SQL.outboxPosition, [eventId])).rows[0]?.seq ?? null;
    },
    async latestOutboxPosition() {
      return (await pool.query<{ seq: number }>(SQL.latestOutboxPosition)).rows[0]!.seq;
    },
    async getUsageBreakdown(userId, { from, to }) {
      const byChatbot = await pool.query<{ chatbot_id: string; messages: number }>(SQL.usageByChatbot, [userId, from, to]);
      const byDay = await pool.query<{ date: string; messages: number }>(SQL.usageByDay, [userId, from, to]);
      return { byChatbot: byChatbot.rows.map((row) => ({ chatbotId: row.chatbot_id, messages: row.messages })), byDay: byDay.rows };
    },
    async createIngestion(ingestion) {
      await pool.query(SQL.insertIngestion, [
        ingestion.id, ingestion.userId, ingestion.chatbotId, ingestion.status, JSON.stringify(ingestion.request), ingestion.documentsTotal,
        ingestion.documentsDone, ingestion.chunks, JSON.stringify(ingestion.errors), ingestion.createdAt, ingestion.startedAt, ingestion.finishedAt,
        ingestion.leasedUntil, ingestion.attempts,
      ]);
      return structuredClone(ingestion);
    },
    async getIngestion(id) {
      const { rows } = await pool.query<IngestionRow>(SQL.getIngestion, [id]);
      return rows[0] ? ingestionFromRow(rows[0]) : null;
    },
    async claimIngestion({ now, leaseUntil, perUser }) {
      const row = await inTransaction(pool, async (client) => {
        await client.query(SQL.lockClaims);
        const next = (await client.query<{ id: string }>(SQL.nextIngestion, [now, perUser])).rows[0];
        return next && (await client.query<IngestionRow>(SQL.startIngestion, [now, leaseUntil, next.id])).rows[0];
      });
      return row ? ingestionFromRow(row) : null;
    },
    async updateIngestion(id, update) {
      const { rows } = await pool.query<IngestionRow>(SQL.updateIngestion, [
        id, update.startedAt, update.documentsTotal, update.documentsDone, update.chunks, JSON.stringify(update.errors),
        update.finished ? null : update.leaseUntil, update.finished?.status ?? "running", update.finished?.at ?? null,
      ]);
      return rows[0] ? ingestionFromRow(rows[0]) : null;
    },
  };
}
