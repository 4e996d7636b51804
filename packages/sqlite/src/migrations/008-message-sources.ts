import type { Migration } from "./migration.js";

/**
 * A model reply remembers the documents its context came from (docs/design.md, "Sources"): a
 * JSON array of `{documentId, title, source, page}`, `[]` for every other message and for every
 * message stored before this step.
 */
export const messageSourcesSchema: Migration = {
  version: 8,
  name: "message-sources",
  up(database) {
    database.exec("ALTER TABLE messages ADD COLUMN sources TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(sources) AND json_type(sources) = 'array')");
  },
};
