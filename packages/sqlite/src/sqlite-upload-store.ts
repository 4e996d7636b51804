import type { UploadStore } from "@parley/core";
import type { Database } from "better-sqlite3";

/** Bytes of one part: its `INSERT` is a short transaction (a few ms), whatever the file's size. */
export const UPLOAD_PART_BYTES = 512 * 1024;
/** Parts older than this with no upload row are left from a save a crash cut (µs, as `created_at`). */
const ORPHAN_PARTS_AFTER_US = 3_600 * 1_000_000;
const NO_CONTENT = Buffer.alloc(0);

/** A turn of the event loop: other requests run between two parts. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Uploaded files in the SQLite database, until their ingestion has read them (migrations 010
 * and 013). A file is written and read one part at a time, with a turn of the event loop
 * between parts, so a large upload never holds the server for the whole file; its `uploads` row
 * comes last, so a save a crash cut leaves no upload, only parts the next save sweeps away.
 */
export function createSqliteUploadStore(database: Database): UploadStore {
  const statements = {
    sweep: database.prepare("DELETE FROM upload_parts WHERE created_at < ? AND upload_id NOT IN (SELECT id FROM uploads)"),
    insertPart: database.prepare("INSERT INTO upload_parts (upload_id, part, bytes, created_at) VALUES (?, ?, ?, ?)"),
    insert: database.prepare("INSERT INTO uploads (id, chatbot_id, name, content, created_at, parts) VALUES (?, ?, ?, ?, ?, ?)"),
    read: database.prepare<[string], { content: Buffer; parts: number | null }>("SELECT content, parts FROM uploads WHERE id = ?"),
    part: database.prepare<[string, number], { bytes: Buffer }>("SELECT bytes FROM upload_parts WHERE upload_id = ? AND part = ?"),
    remove: database.prepare("DELETE FROM uploads WHERE id IN (SELECT value FROM json_each(?))"),
  };
  return {
    async save({ id, chatbotId, name, content, at }) {
      statements.sweep.run(at - ORPHAN_PARTS_AFTER_US);
      const parts = Math.ceil(content.byteLength / UPLOAD_PART_BYTES);
      for (let part = 0; part < parts; part++) {
        if (part > 0) await nextTurn();
        const start = part * UPLOAD_PART_BYTES;
        const length = Math.min(UPLOAD_PART_BYTES, content.byteLength - start);
        statements.insertPart.run(id, part, Buffer.from(content.buffer, content.byteOffset + start, length), at);
      }
      statements.insert.run(id, chatbotId, name, NO_CONTENT, at, parts);
    },
    async read(id) {
      const row = statements.read.get(id);
      if (row === undefined) return null;
      if (row.parts === null) return new Uint8Array(row.content.buffer, row.content.byteOffset, row.content.byteLength);
      const parts: Buffer[] = [];
      for (let part = 0; part < row.parts; part++) {
        if (part > 0) await nextTurn();
        const found = statements.part.get(id, part);
        // Removed meanwhile (its ingestion ended, its chatbot was deleted): the upload is gone.
        if (found === undefined) return null;
        parts.push(found.bytes);
      }
      const whole = Buffer.concat(parts);
      return new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength);
    },
    async remove(ids) {
      statements.remove.run(JSON.stringify(ids));
    },
  };
}
