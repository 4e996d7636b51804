import type { Database } from "better-sqlite3";
import type { Storage } from "@parley/core";
import { CONVERSATION_COLUMNS, MESSAGE_READ_COLUMNS, type ConversationRow, type MessageRow } from "@parley/core/storage-rows";
import { sqliteRows } from "./sqlite-storage-rows.js";
import { insertOutboxEvents, typedPrepare, type StorageStatements } from "./sqlite-storage-statements.js";

/**
 * Ratings of model replies on SQLite (docs/design.md §14): stored on the message, with the
 * `message.rated` event in the same IMMEDIATE transaction (`write`).
 */
export function createSqliteFeedbackStorage(database: Database, storageStatements: StorageStatements, write: <Result>(step: () => Result) => Result): Pick<Storage, "rateMessage" | "countFeedback"> {
  const prepare = typedPrepare(database);
  const statements = {
    conversation: prepare<[string, string], ConversationRow>(`SELECT ${CONVERSATION_COLUMNS} FROM conversations WHERE chatbot_id = ? AND session_id = ?`),
    // Only a model reply of that conversation may be rated.
    rate: prepare<{ id: string; conversation_id: string; rating: string; comment: string | null; at: number }, MessageRow>(
      `UPDATE messages SET feedback_rating = @rating, feedback_comment = @comment, feedback_at = @at
       WHERE id = @id AND conversation_id = @conversation_id AND role = 'assistant' AND author = 'model'
       RETURNING ${MESSAGE_READ_COLUMNS}`,
    ),
    count: prepare<{ user: string; from: number; to: number }, { chatbot_id: string; up: number; down: number }>(
      `SELECT c.chatbot_id, sum(m.feedback_rating = 'up') AS up, sum(m.feedback_rating = 'down') AS down
       FROM messages m JOIN conversations c ON c.id = m.conversation_id
       WHERE m.feedback_rating IS NOT NULL AND m.feedback_at >= @from AND m.feedback_at < @to AND c.owner_id = @user
       GROUP BY c.chatbot_id ORDER BY c.chatbot_id`,
    ),
  };
  return {
    async rateMessage(input) {
      return write(() => {
        const found = statements.conversation.get(input.chatbotId, input.sessionId);
        if (!found) return null;
        const row = statements.rate.get({ id: input.messageId, conversation_id: found.id, rating: input.rating, comment: input.comment, at: input.at });
        if (!row) return null;
        const message = sqliteRows.messageFromRow(row);
        // Built inside the transaction: a throwing builder rolls the rating back with it.
        const events = input.events({ conversation: sqliteRows.conversationFromRow(found), message: structuredClone(message) });
        insertOutboxEvents(storageStatements, events);
        return { message, events };
      });
    },
    async countFeedback(userId, { from, to }) {
      return statements.count.all({ user: userId, from, to }).map((row) => ({ chatbotId: row.chatbot_id, up: row.up, down: row.down }));
    },
  };
}
