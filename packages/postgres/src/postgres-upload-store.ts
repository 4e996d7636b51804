import type { UploadStore } from "@parley/core";
import type pg from "pg";
import { toText } from "./postgres-text.js";

/** Uploaded files in PostgreSQL (storage migration 4), where every server process can read them until their ingestion has. */
export function createPostgresUploadStore(pool: pg.Pool): UploadStore {
  return {
    async save({ id, chatbotId, name, content, at }) {
      await pool.query("INSERT INTO uploads (id, chatbot_id, name, content, created_at) VALUES ($1, $2, $3, $4, $5)", [
        id, chatbotId, toText(name), Buffer.from(content.buffer, content.byteOffset, content.byteLength), at,
      ]);
    },
    async read(id) {
      const { rows } = await pool.query<{ content: Buffer }>("SELECT content FROM uploads WHERE id = $1", [id]);
      return rows[0] === undefined ? null : new Uint8Array(rows[0].content.buffer, rows[0].content.byteOffset, rows[0].content.byteLength);
    },
    async remove(ids) {
      if (ids.length > 0) await pool.query("DELETE FROM uploads WHERE id = ANY($1::text[])", [ids]);
    },
  };
}
