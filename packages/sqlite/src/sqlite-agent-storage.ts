import type { Database } from "better-sqlite3";
import type { AgentStorage, ConversationEvent } from "@parley/core";
import { typedPrepare } from "./sqlite-storage-statements.js";

interface ConversationEventRow {
  conversation_id: string;
  type: string;
  by_name: string | null;
  at: number;
}

/**
 * SQL of the unread rule (docs/design.md §16) for the conversation id `conversation` (a column
 * or a parameter, never caller text) and the key `@reader`: its visitor messages after the key's
 * last read one. Shared by the count and the inbox filter.
 */
export const unreadMessagesOf = (conversation: string) => `FROM messages um WHERE um.conversation_id = ${conversation} AND um.role = 'user'
  AND um.seq > coalesce((SELECT last_read_seq FROM conversation_reads WHERE api_key_id = @reader AND conversation_id = ${conversation}), 0)`;

/**
 * Read state per key and the takeover timeline on SQLite; writes run through `write` (one
 * IMMEDIATE transaction). `recordTakeover` is for the takeover step's own transaction.
 */
export function createSqliteAgentStorage(database: Database, write: <Result>(step: () => Result) => Result) {
  const prepare = typedPrepare(database);
  const statements = {
    seqOfMessage: prepare<[string, string], { seq: number }>("SELECT seq FROM messages WHERE id = ? AND conversation_id = ?"),
    // max(): read state only moves forward, whichever of two tabs reports last.
    markRead: prepare<{ reader: string; conversation_id: string; seq: number; at: number }>(
      `INSERT INTO conversation_reads (api_key_id, conversation_id, last_read_seq, read_at) VALUES (@reader, @conversation_id, @seq, @at)
       ON CONFLICT (api_key_id, conversation_id) DO UPDATE SET last_read_seq = max(last_read_seq, excluded.last_read_seq), read_at = excluded.read_at`,
    ),
    countUnread: prepare<{ reader: string; id: string }, { unread: number }>(
      `SELECT count(*) AS unread ${unreadMessagesOf("@id")}`,
    ),
    events: prepare<[string], ConversationEventRow>("SELECT conversation_id, type, by_name, at FROM conversation_events WHERE conversation_id = ? ORDER BY seq"),
    insertEvent: prepare<ConversationEventRow>("INSERT INTO conversation_events (conversation_id, type, by_name, at) VALUES (@conversation_id, @type, @by_name, @at)"),
  };

  const storage: AgentStorage = {
    async markConversationRead({ apiKeyId, conversationId, upToMessageId, at }) {
      return write(() => {
        const found = statements.seqOfMessage.get(upToMessageId, conversationId);
        if (!found) return false;
        statements.markRead.run({ reader: apiKeyId, conversation_id: conversationId, seq: found.seq, at });
        return true;
      });
    },
    async countUnread(apiKeyId, conversationIds) {
      return Object.fromEntries(conversationIds.map((id) => [id, statements.countUnread.get({ reader: apiKeyId, id })!.unread]));
    },
    async listConversationEvents(conversationIds) {
      return Object.fromEntries(
        conversationIds.map((id) => [id, statements.events.all(id).map((row): ConversationEvent => ({ type: row.type as ConversationEvent["type"], by: row.by_name, at: row.at }))]),
      );
    },
  };
  return {
    storage,
    /** Keeps a takeover change on the conversation's timeline; call inside the step's transaction. */
    recordTakeover(conversationId: string, started: boolean, by: string | null, at: number): void {
      statements.insertEvent.run({ conversation_id: conversationId, type: started ? "takeover_started" : "takeover_ended", by_name: by, at });
    },
  };
}
