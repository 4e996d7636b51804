import type { Migration } from "./migration.js";

/**
 * Uploaded files wait for their ingestion in the database, not in a folder beside it: one clear
 * path on every engine (docs/design.md, "Any PostgreSQL"). The triggers remove an upload when its
 * ingestion ends, however it ends, and when its chatbot is deleted, in the same transaction.
 */
export const uploadsSchema: Migration = {
  version: 10,
  name: "uploads",
  up(database) {
    database.exec(`
      CREATE TABLE uploads (
        id TEXT NOT NULL PRIMARY KEY,
        chatbot_id TEXT NOT NULL,
        name TEXT NOT NULL,
        content BLOB NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE INDEX uploads_by_chatbot ON uploads (chatbot_id);
      CREATE TRIGGER uploads_of_ended_ingestion AFTER UPDATE OF status ON ingestions
        WHEN new.status IN ('succeeded', 'failed') AND old.status IS NOT new.status
      BEGIN
        DELETE FROM uploads WHERE id IN (SELECT json_extract(value, '$.upload') FROM json_each(new.request, '$.files'));
      END;
      CREATE TRIGGER uploads_of_deleted_chatbot AFTER UPDATE OF deleted_at ON chatbots
        WHEN new.deleted_at IS NOT NULL
      BEGIN
        DELETE FROM uploads WHERE chatbot_id = new.id;
      END;
    `);
  },
};
