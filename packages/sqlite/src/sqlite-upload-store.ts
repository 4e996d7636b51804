import type { UploadStore } from "@parley/core";
import type { Database } from "better-sqlite3";

/** Uploaded files in the SQLite database (migration 010), until their ingestion has read them. */
export function createSqliteUploadStore(database: Database): UploadStore {
  const statements = {
    insert: database.prepare("INSERT INTO uploads (id, chatbot_id, name, content, created_at) VALUES (?, ?, ?, ?, ?)"),
    read: database.prepare<[string], { content: Buffer }>("SELECT content FROM uploads WHERE id = ?"),
    remove: database.prepare("DELETE FROM uploads WHERE id IN (SELECT value FROM json_each(?))"),
  };
  return {
    async save({ id, chatbotId, name, content, at }) {
      statements.insert.run(id, chatbotId, name, Buffer.from(content.buffer, content.byteOffset, content.byteLength), at);
    },
    async read(id) {
      const row = statements.read.get(id);
      return row === undefined ? null : new Uint8Array(row.content.buffer, row.content.byteOffset, row.content.byteLength);
    },
    async remove(ids) {
      statements.remove.run(JSON.stringify(ids));
    },
  };
}
