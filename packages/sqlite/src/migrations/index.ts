import type { Migration } from "./migration.js";
import { storageSchema } from "./001-storage.js";
import { searchSchema } from "./002-search.js";
import { webhooksSchema } from "./003-webhooks.js";
import { ftsAutomerge } from "./004-fts-automerge.js";
import { operatorSchema } from "./005-operator.js";
import { searchDocumentsSchema } from "./006-search-documents.js";
import { publicWebhooksSchema } from "./007-public-webhooks.js";
import { messageSourcesSchema } from "./008-message-sources.js";
import { ingestionSharesSchema } from "./009-ingestion-shares.js";
import { uploadsSchema } from "./010-uploads.js";
import { agentsSchema } from "./011-agents.js";
import { widgetSchema } from "./012-widget.js";
import { uploadPartsSchema } from "./013-upload-parts.js";

/** Every migration, in order. Append only: never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  storageSchema,
  searchSchema,
  webhooksSchema,
  ftsAutomerge,
  operatorSchema,
  searchDocumentsSchema,
  publicWebhooksSchema,
  messageSourcesSchema,
  ingestionSharesSchema,
  uploadsSchema,
  agentsSchema,
  widgetSchema,
  uploadPartsSchema,
];
