import type { Migration } from "./migration.js";

/**
 * The chat widget and feedback (docs/design.md §14, "Widget settings, secret and feedback"): a
 * chatbot's widget settings as a JSON object (`{}` reads as the defaults: off), the nonce its
 * identity secret is derived from (never the secret), and a model reply's rating with its
 * optional comment and time. The partial index serves the usage's feedback counts.
 */
export const widgetSchema: Migration = {
  version: 12,
  name: "widget",
  up(database) {
    database.exec(`
      ALTER TABLE chatbots ADD COLUMN widget TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(widget) AND json_type(widget) = 'object');
      ALTER TABLE chatbots ADD COLUMN widget_secret_nonce TEXT;
      ALTER TABLE messages ADD COLUMN feedback_rating TEXT CHECK (feedback_rating IN ('up', 'down'));
      ALTER TABLE messages ADD COLUMN feedback_comment TEXT;
      ALTER TABLE messages ADD COLUMN feedback_at INTEGER;
      CREATE INDEX messages_rated ON messages (feedback_at) WHERE feedback_rating IS NOT NULL;
    `);
  },
};
