import type { Migration } from "./migration.js";

/**
 * Subscriptions made through the operator API are delivered only to public addresses
 * (docs/design.md §9); those of the CLI, and every one made before this step, are not restricted.
 */
export const publicWebhooksSchema: Migration = {
  version: 7,
  name: "public-webhooks",
  up(database) {
    database.exec("ALTER TABLE webhook_subscriptions ADD COLUMN public_only INTEGER NOT NULL DEFAULT 0 CHECK (public_only IN (0, 1))");
  },
};
