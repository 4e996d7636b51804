import { setAutomerge } from "../sqlite-search-index-keyword.js";
import type { Migration } from "./migration.js";

/**
 * Chatbots' FTS5 tables created before FTS_AUTOMERGE get it too, so every table merges its
 * segments the same way (new tables are created with it).
 */
export const ftsAutomerge: Migration = {
  version: 4,
  name: "fts-automerge",
  up(database) {
    const keys = database.prepare("SELECT key FROM search_chatbots").pluck().all() as number[];
    for (const key of keys) setAutomerge(database, key);
  },
};
