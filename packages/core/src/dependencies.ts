import type { EventBus } from "./events/event-bus.js";
import type { ChatModels } from "./ports/chat-model.js";
import type { Clock } from "./ports/clock.js";
import type { Embedder } from "./ports/embedder.js";
import type { Ids } from "./ports/ids.js";
import type { RateLimiter } from "./ports/rate-limiter.js";
import type { SearchIndex } from "./ports/search-index.js";
import type { Storage } from "./ports/storage.js";
import type { WebhookSecrets } from "./ports/webhook-secrets.js";
import type { WidgetSecrets } from "./ports/widget-secrets.js";
import type { KnowledgeSources } from "./ports/knowledge-sources.js";
import type { ParleySettings } from "./settings.js";

/** Everything the services of the core run on, resolved with defaults by `createParley`. */
export interface Dependencies {
  storage: Storage;
  searchIndex: SearchIndex;
  embedder: Embedder;
  chatModels: ChatModels;
  rateLimiter: RateLimiter;
  clock: Clock;
  ids: Ids;
  events: EventBus;
  webhookSecrets: WebhookSecrets;
  /** Derives widget identity secrets from the master key (docs/design.md §14). */
  widgetSecrets: WidgetSecrets;
  settings: ParleySettings;
  /** Reads files and URLs for ingestions; absent, only text can be added. */
  knowledgeSources?: KnowledgeSources;
  /** Refuses a webhook URL an API caller may not use (a private address); absent, every http(s) URL is allowed. */
  checkWebhookUrl?: (url: string) => Promise<void>;
  /** Tells this process's ingestion runner that work was queued. */
  wakeIngestions?: () => void;
  /** Told the id of each key revoked in this process, at once (open event streams of the key end). */
  keyRevoked?: (keyId: string) => void;
}
