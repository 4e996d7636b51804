import type { AgentStorage, ConversationEvent } from "@parley/core";
import type pg from "pg";
import { inTransaction } from "./postgres-transaction.js";
import { fromText, toText } from "./postgres-text.js";

type Queryable = Pick<pg.PoolClient, "query">;

/**
 * SQL of the unread rule (docs/design.md §16) for the conversation id `conversation` and the key
 * `reader` (a column or a parameter, never caller text): its visitor messages after the key's
 * last read one. Shared by the count and the inbox filter.
 */
export const unreadMessagesOf = (conversation: string, reader: string) => `FROM messages um WHERE um.conversation_id = ${conversation} AND um.role = 'user'
  AND um.seq > coalesce((SELECT last_read_seq FROM conversation_reads WHERE api_key_id = ${reader} AND conversation_id = ${conversation}), 0)`;

const SQL = {
  seqOfMessage: "SELECT seq FROM messages WHERE id = $1 AND conversation_id = $2",
  // greatest(): read state only moves forward, whichever of two tabs reports last.
  markRead: `INSERT INTO conversation_reads (api_key_id, conversation_id, last_read_seq, read_at) VALUES ($1, $2, $3, $4)
    ON CONFLICT (api_key_id, conversation_id) DO UPDATE
    SET last_read_seq = greatest(conversation_reads.last_read_seq, excluded.last_read_seq), read_at = excluded.read_at`,
  countUnread: `SELECT ids.id, (SELECT count(*) ${unreadMessagesOf("ids.id", "$1")})::int AS unread FROM unnest($2::text[]) AS ids (id)`,
  events: "SELECT conversation_id, type, by_name, at FROM conversation_events WHERE conversation_id = ANY ($1::text[]) ORDER BY seq",
  insertEvent: "INSERT INTO conversation_events (conversation_id, type, by_name, at) VALUES ($1, $2, $3, $4)",
} as const;

/** Keeps a takeover change on the conversation's timeline, inside the takeover step's transaction. */
export async function recordTakeover(client: Queryable, conversationId: string, started: boolean, by: string | null, at: number): Promise<void> {
  await client.query(SQL.insertEvent, [conversationId, started ? "takeover_started" : "takeover_ended", by === null ? null : toText(by), at]);
}

/** Read state per key and the takeover timeline on PostgreSQL. */
export function createPostgresAgentStorage(pool: pg.Pool): AgentStorage {
  return {
    async markConversationRead({ apiKeyId, conversationId, upToMessageId, at }) {
      return inTransaction(pool, async (client) => {
        const found = (await client.query<{ seq: number }>(SQL.seqOfMessage, [upToMessageId, conversationId])).rows[0];
        if (!found) return false;
        await client.query(SQL.markRead, [apiKeyId, conversationId, found.seq, at]);
        return true;
      });
    },
    async countUnread(apiKeyId, conversationIds) {
      const { rows } = await pool.query<{ id: string; unread: number }>(SQL.countUnread, [apiKeyId, [...conversationIds]]);
      return Object.fromEntries(rows.map((row) => [row.id, row.unread]));
    },
    async listConversationEvents(conversationIds) {
      const timelines: Record<string, ConversationEvent[]> = Object.fromEntries(conversationIds.map((id) => [id, []]));
      const { rows } = await pool.query<{ conversation_id: string; type: string; by_name: string | null; at: number }>(SQL.events, [[...conversationIds]]);
      for (const row of rows) timelines[row.conversation_id]!.push({ type: row.type as ConversationEvent["type"], by: row.by_name === null ? null : fromText(row.by_name), at: row.at });
      return timelines;
    },
  };
}
