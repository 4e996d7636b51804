import type { DocumentToIndex, SearchIndex } from "@parley/core";
import { toText } from "@parley/postgres";
import { openDatabase } from "@parley/sqlite";
import type { Database } from "better-sqlite3";
import type pg from "pg";

/** How one table is copied: its columns, the order rows were written in, and the columns to convert. */
interface TableCopy {
  table: string;
  columns: string[];
  order: string;
  /** SQLite 0/1 columns that are BOOLEAN in PostgreSQL. */
  flags?: string[];
  /** Text a user wrote, escaped as the PostgreSQL storage stores it (NUL cannot be in TEXT). */
  texts?: string[];
}

// In dependency order; each table in the order its rows were written, so positions (seq) follow it.
const TABLES: TableCopy[] = [
  { table: "plans", columns: ["name", "monthly_messages"], order: "rowid" },
  { table: "users", columns: ["id", "email", "email_key", "plan_name", "monthly_messages_override", "created_at"], order: "rowid" },
  { table: "api_keys", columns: ["id", "user_id", "name", "key_hash", "scope", "created_at", "revoked_at", "last_used_at"], order: "rowid", texts: ["name"] },
  {
    table: "chatbots",
    columns: ["id", "owner_id", "name", "slug", "provider", "model", "system_prompt", "fallback_message", "is_active", "created_at", "updated_at", "deleted_at", "widget", "widget_secret_nonce"],
    order: "rowid",
    flags: ["is_active"],
    texts: ["name", "model", "system_prompt", "fallback_message"],
  },
  {
    table: "conversations",
    columns: ["id", "chatbot_id", "owner_id", "session_id", "human_takeover", "needs_attention", "attention_reason", "message_count", "created_at", "updated_at"],
    order: "rowid",
    flags: ["human_takeover", "needs_attention"],
    texts: ["session_id"],
  },
  {
    table: "messages",
    columns: ["id", "conversation_id", "role", "author", "content", "agent_name", "created_at", "sources", "feedback_rating", "feedback_comment", "feedback_at"],
    order: "seq",
    texts: ["content", "agent_name", "feedback_comment"],
  },
  { table: "conversation_events", columns: ["conversation_id", "type", "by_name", "at"], order: "seq", texts: ["by_name"] },
  { table: "monthly_usage", columns: ["user_id", "month", "used"], order: "user_id, month" },
  { table: "outbox_events", columns: ["id", "type", "user_id", "chatbot_id", "data", "created_at", "dispatched_at"], order: "seq" },
  { table: "webhook_subscriptions", columns: ["id", "user_id", "url", "chatbot_id", "event_types", "signing_key_id", "public_only", "created_at"], order: "seq", flags: ["public_only"] },
  {
    table: "webhook_deliveries",
    columns: ["id", "subscription_id", "user_id", "event_id", "event_type", "status", "attempts", "next_attempt_at", "leased_until", "last_attempt_at", "last_response_status", "last_error", "created_at", "delivered_at"],
    order: "seq",
  },
  {
    table: "ingestions",
    columns: ["id", "user_id", "chatbot_id", "status", "request", "documents_total", "documents_done", "chunks", "errors", "created_at", "started_at", "finished_at", "leased_until"],
    order: "seq",
  },
  // Files still waiting for a queued ingestion.
  { table: "uploads", columns: ["id", "chatbot_id", "name", "content", "created_at"], order: "rowid", texts: ["name"] },
];

const ROWS_PER_INSERT = 500;
const DOCUMENTS_PER_WRITE = 200;

/** Copies one table's rows, in batches of multi-row INSERTs, inside the caller's transaction. */
async function copyTable(source: Database, client: pg.PoolClient, copy: TableCopy): Promise<number> {
  const rows = source.prepare(`SELECT ${copy.columns.join(", ")} FROM ${copy.table} ORDER BY ${copy.order}`).all() as Record<string, unknown>[];
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const batch = rows.slice(start, start + ROWS_PER_INSERT);
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const placeholders = copy.columns.map((column) => {
        let value = row[column];
        if (copy.flags?.includes(column)) value = value === 1;
        if (copy.texts?.includes(column) && typeof value === "string") value = toText(value);
        values.push(value);
        return `$${values.length}`;
      });
      return `(${placeholders.join(", ")})`;
    });
    await client.query(`INSERT INTO ${copy.table} (${copy.columns.join(", ")}) VALUES ${tuples.join(", ")}`, values);
  }
  return rows.length;
}

interface ChunkRow { source: string; title: string; body: string; embedding: Buffer | null }
interface CatalogRow { id: string; source: string; title: string; type: string; bytes: number; created_at: number; updated_at: number }

/** Uploads SQLite keeps in parts (its migration 013) arrive whole: PostgreSQL keeps a file in one row. */
async function copyUploadParts(source: Database, client: pg.PoolClient): Promise<void> {
  const uploads = source.prepare("SELECT id FROM uploads WHERE parts IS NOT NULL ORDER BY rowid").pluck().all() as string[];
  const parts = source.prepare("SELECT bytes FROM upload_parts WHERE upload_id = ? ORDER BY part").pluck();
  for (const id of uploads) await client.query("UPDATE uploads SET content = $1 WHERE id = $2", [Buffer.concat(parts.all(id) as Buffer[]), id]);
}

/**
 * Copies each key's read state. A read position is a message's seq, which PostgreSQL numbers
 * afresh, so it travels as the message id and becomes that message's new seq.
 */
async function copyReads(source: Database, client: pg.PoolClient): Promise<number> {
  const rows = source
    .prepare("SELECT r.api_key_id, r.conversation_id, m.id AS message_id, r.read_at FROM conversation_reads r JOIN messages m ON m.seq = r.last_read_seq")
    .all() as { api_key_id: string; conversation_id: string; message_id: string; read_at: number }[];
  for (const row of rows) {
    await client.query(
      "INSERT INTO conversation_reads (api_key_id, conversation_id, last_read_seq, read_at) SELECT $1, $2, seq, $4 FROM messages WHERE id = $3",
      [row.api_key_id, row.conversation_id, row.message_id, row.read_at],
    );
  }
  return rows.length;
}

/** Indexes one chatbot's chunks again on PostgreSQL (same order, same vectors), and keeps its documents' ids and times. */
async function copyChatbotIndex(source: Database, pool: pg.Pool, searchIndex: SearchIndex, bot: { key: number; chatbot_id: string; embedder_id: string; dimensions: number }): Promise<number> {
  const chunks = source.prepare("SELECT source, title, body, embedding FROM search_chunks WHERE bot = ? ORDER BY id").all(bot.key) as ChunkRow[];
  const catalog = new Map((source.prepare("SELECT id, source, title, type, bytes, created_at, updated_at FROM search_documents WHERE bot = ?").all(bot.key) as CatalogRow[]).map((row) => [row.source, row]));
  const documents = new Map<string, DocumentToIndex>();
  for (const chunk of chunks) {
    if (chunk.embedding === null) throw new Error(`Chatbot ${bot.chatbot_id} is being reindexed (chunks without vectors): finish "parley reindex" first.`);
    const embedding = new Float32Array(chunk.embedding.buffer.slice(chunk.embedding.byteOffset, chunk.embedding.byteOffset + chunk.embedding.byteLength));
    const known = catalog.get(chunk.source);
    const document = documents.get(chunk.source) ?? { source: chunk.source, title: chunk.title, chunks: [], ...(known ? { documentTitle: known.title, type: known.type, bytes: known.bytes } : {}) };
    document.chunks.push({ text: chunk.body, embedding });
    documents.set(chunk.source, document);
  }
  const space = { embedderId: bot.embedder_id, dimensions: bot.dimensions };
  const all = [...documents.values()];
  for (let start = 0; start < all.length; start += DOCUMENTS_PER_WRITE) await searchIndex.replaceDocuments(bot.chatbot_id, space, all.slice(start, start + DOCUMENTS_PER_WRITE));
  for (const row of catalog.values()) {
    await pool.query(
      `UPDATE search_documents AS d SET id = $1, created_at = $2, updated_at = $3 FROM search_chatbots AS b
       WHERE b.key = d.bot AND b.chatbot_id = $4 AND d.source = $5`,
      [row.id, row.created_at, row.updated_at, bot.chatbot_id, Buffer.from(row.source, "utf8")],
    );
  }
  return chunks.length;
}

/**
 * Copies a SQLite database (migrated to this version first) into an empty PostgreSQL: every
 * storage table in one transaction (all or nothing), then each chatbot's knowledge through the
 * PostgreSQL search index. Returns the rows copied per table and the chunks indexed.
 */
export async function copyFromSqlite(path: string, pool: pg.Pool, searchIndex: SearchIndex): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ users: number }>("SELECT count(*) AS users FROM users");
  if (rows[0]!.users > 0) throw new Error(`PostgreSQL already holds data (${rows[0]!.users} users): --from copies into an empty database only.`);
  const source = openDatabase({ path });
  try {
    const copied: Record<string, number> = {};
    const client = await pool.connect();
    try {
      await client.query("BEGIN");
      for (const copy of TABLES) copied[copy.table] = await copyTable(source, client, copy);
      copied.conversation_reads = await copyReads(source, client);
      await copyUploadParts(source, client);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.release();
    }
    copied.search_chunks = 0;
    const bots = source.prepare("SELECT key, chatbot_id, embedder_id, dimensions FROM search_chatbots ORDER BY key").all() as { key: number; chatbot_id: string; embedder_id: string; dimensions: number }[];
    for (const bot of bots) copied.search_chunks += await copyChatbotIndex(source, pool, searchIndex, bot);
    return copied;
  } finally {
    source.close();
  }
}
