import type { OutboxEvent, Storage } from "@parley/core";
import type pg from "pg";
import { CONVERSATION_COLUMNS, MESSAGE_READ_COLUMNS, type ConversationRow, type MessageRow } from "@parley/core/storage-rows";
import { postgresRows } from "./postgres-storage-rows.js";
import { toText } from "./postgres-text.js";
import { inTransaction } from "./postgres-transaction.js";

type Queryable = pg.Pool | pg.PoolClient;

const SQL = {
  conversation: `SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = $1 AND session_id = $2`,
  // Only a model reply of that conversation may be rated; the row lock orders two ratings of it.
  rate: `UPDATE messages SET feedback_rating = $3, feedback_comment = $4, feedback_at = $5
    WHERE id = $1 AND conversation_id = $2 AND role = 'assistant' AND author = 'model'
    RETURNING ${MESSAGE_READ_COLUMNS}`,
  count: `SELECT c.chatbot_id, (count(*) FILTER (WHERE m.feedback_rating = 'up'))::int AS up, (count(*) FILTER (WHERE m.feedback_rating = 'down'))::int AS down
    FROM messages m JOIN conversations c ON c.id = m.conversation_id
    WHERE m.feedback_rating IS NOT NULL AND m.feedback_at >= $2 AND m.feedback_at < $3 AND c.owner_id = $1
    GROUP BY c.chatbot_id ORDER BY c.chatbot_id`,
} as const;

/**
 * Ratings of model replies on PostgreSQL (docs/design.md §14): stored on the message, with the
 * `message.rated` event (written by `insertEvents`) in the same transaction.
 */
export function createPostgresFeedbackStorage(pool: pg.Pool, insertEvents: (client: Queryable, events: readonly OutboxEvent[]) => Promise<void>): Pick<Storage, "rateMessage" | "countFeedback"> {
  return {
    async rateMessage(input) {
      return inTransaction(pool, async (client) => {
        const found = (await client.query<ConversationRow>(SQL.conversation, [input.chatbotId, toText(input.sessionId)])).rows[0];
        if (!found) return null;
        const comment = input.comment === null ? null : toText(input.comment);
        const row = (await client.query<MessageRow>(SQL.rate, [input.messageId, found.id, input.rating, comment, input.at])).rows[0];
        if (!row) return null;
        const message = postgresRows.messageFromRow(row);
        // Built inside the transaction: a throwing builder rolls the rating back with it.
        const events = input.events({ conversation: postgresRows.conversationFromRow(found), message: structuredClone(message) });
        await insertEvents(client, events);
        return { message, events };
      });
    },
    async countFeedback(userId, { from, to }) {
      const { rows } = await pool.query<{ chatbot_id: string; up: number; down: number }>(SQL.count, [userId, from, to]);
      return rows.map((row) => ({ chatbotId: row.chatbot_id, up: row.up, down: row.down }));
    },
  };
}
