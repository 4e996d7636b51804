import type { Migration } from "./migration.js";

/**
 * Uploads stored in parts (docs/design.md §17, "Uploads in the database"): one `INSERT` of a whole file
 * held the event loop for as long as SQLite took to write it (88 ms for 5.5 MiB, measured), so a
 * file is now written one part at a time, each part its own short transaction. The `uploads`
 * row is written last, with the number of parts: until it exists the parts belong to no upload,
 * so a crash half-way leaves nothing an ingestion could read (and the next save sweeps such
 * parts away). Rows from before keep their bytes in `content` (`parts` NULL). Removing an upload,
 * by its ingestion's end or its chatbot's deletion (migration 010's triggers), removes its parts.
 */
export const uploadPartsSchema: Migration = {
  version: 13,
  name: "upload-parts",
  up(database) {
    database.exec(`
      ALTER TABLE uploads ADD COLUMN parts INTEGER;
      CREATE TABLE upload_parts (
        upload_id TEXT NOT NULL,
        part INTEGER NOT NULL,
        bytes BLOB NOT NULL,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (upload_id, part)
      );
      CREATE TRIGGER upload_parts_of_removed_upload AFTER DELETE ON uploads
      BEGIN
        DELETE FROM upload_parts WHERE upload_id = old.id;
      END;
    `);
  },
};
