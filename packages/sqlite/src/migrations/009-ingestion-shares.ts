import type { Migration } from "./migration.js";

/**
 * Ingestions count their runs (`attempts`), so one whose runner keeps dying is given up, and
 * runners share themselves between users: the claim counts a user's live leases and finds when
 * the user's last ingestion started through `ingestions_by_user`.
 */
export const ingestionSharesSchema: Migration = {
  version: 9,
  name: "ingestion-shares",
  up(database) {
    database.exec(`
      ALTER TABLE ingestions ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX ingestions_by_user ON ingestions (user_id, started_at);
    `);
  },
};
