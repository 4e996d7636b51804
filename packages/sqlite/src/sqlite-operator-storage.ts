import type { Database } from "better-sqlite3";
import type { OperatorStorage } from "@parley/core";
import { CONVERSATION_COLUMNS, INGESTION_COLUMNS, MESSAGE_READ_COLUMNS, OUTBOX_COLUMNS, ingestionFromRow, outboxEventFromRow, type ConversationSummaryRow, type IngestionRow, type MessageRow, type OutboxEventRow } from "@parley/core/storage-rows";
import { sqliteRows } from "./sqlite-storage-rows.js";
import { unreadMessagesOf } from "./sqlite-agent-storage.js";
import { typedPrepare } from "./sqlite-storage-statements.js";


// The latest message of a conversation, read through messages_by_conversation (one probe).
const SUMMARY_COLUMNS = `${CONVERSATION_COLUMNS.split(", ").map((column) => `c.${column}`).join(", ")},
  m.id AS last_id, m.role AS last_role, m.author AS last_author, m.content AS last_content, m.agent_name AS last_agent_name, m.created_at AS last_created_at, m.sources AS last_sources,
  m.feedback_rating AS last_feedback_rating, m.feedback_comment AS last_feedback_comment, m.feedback_at AS last_feedback_at`;
const SUMMARY_FROM = `conversations c LEFT JOIN messages m ON m.seq = (SELECT max(seq) FROM messages WHERE conversation_id = c.id)`;
// Every filter is a fixed fragment with bound values: no caller text ever becomes SQL.
const STATUS_FILTERS = { bot: "AND c.human_takeover = 0", human: "AND c.human_takeover = 1", attention: "AND c.needs_attention = 1" } as const;

/** Conversation lists, the outbox as a feed, usage and ingestions on SQLite; writes run through `write` (one IMMEDIATE transaction). */
export function createSqliteOperatorStorage(database: Database, write: <Result>(step: () => Result) => Result): OperatorStorage {
  const prepare = typedPrepare(database);
  const getSummary = prepare<[string], ConversationSummaryRow>(`SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM} WHERE c.id = ?`);
  const listSummaries = new Map(
    (["", ...Object.keys(STATUS_FILTERS)] as ("" | keyof typeof STATUS_FILTERS)[]).flatMap((status) =>
      [false, true].map((byChatbot) => [
        `${status}:${byChatbot}`,
        prepare<{ owner_id: string; chatbot_id: string | null; limit: number; after_at: number | null; after_id: string; reader: string | null }, ConversationSummaryRow>(
          `SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM}
           WHERE ${byChatbot ? "c.chatbot_id = @chatbot_id AND " : ""}c.owner_id = @owner_id
             AND (SELECT deleted_at FROM chatbots WHERE id = c.chatbot_id) IS NULL
             AND (@after_at IS NULL OR c.updated_at < @after_at OR (c.updated_at = @after_at AND c.id > @after_id))
             ${status === "" ? "" : STATUS_FILTERS[status]}
             AND (@reader IS NULL OR EXISTS (SELECT 1 ${unreadMessagesOf("c.id")}))
           ORDER BY c.updated_at DESC, c.id ASC LIMIT CAST(@limit AS INTEGER)`,
        ),
      ]),
    ),
  );
  const statements = {
    seqOfMessage: prepare<[string, string], { seq: number }>("SELECT seq FROM messages WHERE id = ? AND conversation_id = ?"),
    messagesAfter: prepare<[string, number], MessageRow>(`SELECT ${MESSAGE_READ_COLUMNS} FROM messages WHERE conversation_id = ? AND seq > ? ORDER BY seq`),
    readOutbox: prepare<[number, number], OutboxEventRow & { seq: number }>(`SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE seq > ? ORDER BY seq LIMIT CAST(? AS INTEGER)`),
    readUserOutbox: prepare<[string, number, number], OutboxEventRow & { seq: number }>(
      `SELECT seq, ${OUTBOX_COLUMNS} FROM outbox_events WHERE user_id = ? AND seq > ? ORDER BY seq LIMIT CAST(? AS INTEGER)`,
    ),
    outboxPosition: prepare<[string], { seq: number }>("SELECT seq FROM outbox_events WHERE id = ?"),
    latestOutboxPosition: prepare<[], { seq: number | null }>("SELECT max(seq) AS seq FROM outbox_events"),
    usageByChatbot: prepare<[string, number, number], { chatbot_id: string; messages: number }>(
      `SELECT c.chatbot_id, count(*) AS messages FROM conversations c JOIN messages m ON m.conversation_id = c.id
       WHERE c.owner_id = ? AND m.role = 'user' AND m.created_at >= ? AND m.created_at < ?
       GROUP BY c.chatbot_id ORDER BY messages DESC, c.chatbot_id`,
    ),
    usageByDay: prepare<[string, number, number], { date: string; messages: number }>(
      `SELECT date(m.created_at / 1000000, 'unixepoch') AS date, count(*) AS messages FROM conversations c JOIN messages m ON m.conversation_id = c.id
       WHERE c.owner_id = ? AND m.role = 'user' AND m.created_at >= ? AND m.created_at < ?
       GROUP BY date ORDER BY date`,
    ),
    insertIngestion: prepare<IngestionRow>(
      `INSERT INTO ingestions (${INGESTION_COLUMNS}) VALUES (@id, @user_id, @chatbot_id, @status, @request, @documents_total,
       @documents_done, @chunks, @errors, @created_at, @started_at, @finished_at, @leased_until, @attempts)`,
    ),
    getIngestion: prepare<[string], IngestionRow>(`SELECT ${INGESTION_COLUMNS} FROM ingestions WHERE id = ?`),
    // Fair between users (the Storage port's claimIngestion): live leases per user, then the
    // user served longest ago, then the oldest ingestion.
    nextIngestion: prepare<{ now: number; per_user: number }, { id: string }>(
      `SELECT id FROM (
         SELECT i.id, i.created_at, i.seq,
           (SELECT count(*) FROM ingestions r WHERE r.user_id = i.user_id AND r.status = 'running' AND r.leased_until > @now) AS live,
           coalesce((SELECT max(s.started_at) FROM ingestions s WHERE s.user_id = i.user_id), -1) AS last_start
         FROM ingestions i WHERE i.status = 'queued' OR (i.status = 'running' AND i.leased_until <= @now))
       WHERE live < @per_user ORDER BY live, last_start, created_at, seq LIMIT 1`,
    ),
    startIngestion: prepare<[number, number, string], IngestionRow>(
      `UPDATE ingestions SET status = 'running', started_at = ?, leased_until = ?, documents_total = NULL, documents_done = 0,
       chunks = 0, errors = '[]', attempts = attempts + 1 WHERE id = ? RETURNING ${INGESTION_COLUMNS}`,
    ),
    updateIngestion: prepare<
      { id: string; started_at: number; documents_total: number | null; documents_done: number; chunks: number; errors: string; leased_until: number | null; status: string; finished_at: number | null },
      IngestionRow
    >(
      `UPDATE ingestions SET documents_total = @documents_total, documents_done = @documents_done, chunks = @chunks, errors = @errors,
       leased_until = @leased_until, status = @status, finished_at = @finished_at
       WHERE id = @id AND status = 'running' AND started_at = @started_at RETURNING ${INGESTION_COLUMNS}`,
    ),
  };

  return {
    async getConversation(id) {
      const row = getSummary.get(id);
      return row ? sqliteRows.conversationSummaryFromRow(row) : null;
    },
    async listConversations(filter) {
      const statement = listSummaries.get(`${filter.status ?? ""}:${filter.chatbotId !== undefined}`)!;
      return statement
        .all({ owner_id: filter.ownerId, chatbot_id: filter.chatbotId ?? null, limit: filter.limit, after_at: filter.after?.at ?? null, after_id: filter.after?.id ?? "", reader: filter.unreadFor ?? null })
        .map(sqliteRows.conversationSummaryFromRow);
    },
    async listMessagesAfter(conversationId, afterMessageId) {
      const found = statements.seqOfMessage.get(afterMessageId, conversationId);
      return found ? statements.messagesAfter.all(conversationId, found.seq).map(sqliteRows.messageFromRow) : null;
    },
    async readOutbox({ afterPosition, limit, userId }) {
      const rows = userId === undefined ? statements.readOutbox.all(afterPosition, limit) : statements.readUserOutbox.all(userId, afterPosition, limit);
      return rows.map((row) => ({ position: row.seq, event: outboxEventFromRow(row) }));
    },
    async outboxPosition(eventId) {
      return statements.outboxPosition.get(eventId)?.seq ?? null;
    },
    async latestOutboxPosition() {
      return statements.latestOutboxPosition.get()?.seq ?? 0;
    },
    async getUsageBreakdown(userId, { from, to }) {
      return {
        byChatbot: statements.usageByChatbot.all(userId, from, to).map((row) => ({ chatbotId: row.chatbot_id, messages: row.messages })),
        byDay: statements.usageByDay.all(userId, from, to),
      };
    },
    async createIngestion(ingestion) {
      write(() =>
        statements.insertIngestion.run({
          id: ingestion.id,
          user_id: ingestion.userId,
          chatbot_id: ingestion.chatbotId,
          status: ingestion.status,
          request: JSON.stringify(ingestion.request),
          documents_total: ingestion.documentsTotal,
          documents_done: ingestion.documentsDone,
          chunks: ingestion.chunks,
          errors: JSON.stringify(ingestion.errors),
          created_at: ingestion.createdAt,
          started_at: ingestion.startedAt,
          finished_at: ingestion.finishedAt,
          leased_until: ingestion.leasedUntil,
          attempts: ingestion.attempts,
        }),
      );
      return structuredClone(ingestion);
    },
    async getIngestion(id) {
      const row = statements.getIngestion.get(id);
      return row ? ingestionFromRow(row) : null;
    },
    async claimIngestion({ now, leaseUntil, perUser }) {
      const row = write(() => {
        const next = statements.nextIngestion.get({ now, per_user: perUser });
        return next && statements.startIngestion.get(now, leaseUntil, next.id);
      });
      return row ? ingestionFromRow(row) : null;
    },
    async updateIngestion(id, update) {
      const row = write(() =>
        statements.updateIngestion.get({
          id,
          started_at: update.startedAt,
          documents_total: update.documentsTotal,
          documents_done: update.documentsDone,
          chunks: update.chunks,
          errors: JSON.stringify(update.errors),
          leased_until: update.finished ? null : update.leaseUntil,
          status: update.finished?.status ?? "running",
          finished_at: update.finished?.at ?? null,
        }),
      );
      return row ? ingestionFromRow(row) : null;
    },
  };
}
