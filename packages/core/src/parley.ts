import type { ChatbotDetail, ChatbotSummary } from "./domain/chatbot.js";
import type { Caller } from "./domain/user.js";
import type { Dependencies } from "./dependencies.js";
import { createEventBus, type EventBus } from "./events/event-bus.js";
import { admitRequest, authenticate } from "./auth/authenticate.js";
import { toChatbotDetail, toChatbotSummary, toWidgetView } from "./chatbots/chatbot-views.js";
import { findLiveChatbot, findOwnedChatbot } from "./chatbots/owned-chatbot.js";
import { chat, chatWithKey, type ChatResult } from "./chat/chat-pipeline.js";
import type { KeyedChatProgress } from "./chat/keyed-chat.js";
import { chatStream, type ChatStreamEvent, type ChatStreamOptions, type ReplyGenerations } from "./chat/chat-stream.js";
import { chatbotOwner } from "./chatbots/chatbot-owner.js";
import { defaultIdentityRules } from "./chat/identity-rules.js";
import { createApiKey, createUser, revokeApiKey, setPlan, showUser } from "./admin/accounts.js";
import { changeChatbot, createChatbot, deleteChatbot, rotateWidgetSecret, setChatbotActive, type ChatbotSettingsInput, type CreateChatbotInput } from "./chatbots/manage-chatbots.js";
import { ingestDocuments, type IngestDocumentsOptions } from "./admin/bulk-ingestion.js";
import { ingestDocument, reindexChatbot, removeDocument } from "./admin/ingestion.js";
import type { DocumentInput } from "./domain/knowledge.js";
import { replyAsAgent, setHumanTakeover, showConversation } from "./admin/conversations.js";
import { createWebhookSubscription, listWebhookDeliveries, retryWebhookDelivery, type CreateWebhookInput } from "./admin/webhooks.js";
import { createMemoryRateLimiter } from "./memory/memory-rate-limiter.js";
import { createIngestionRunner, type IngestionRunner, type IngestionRunnerOptions } from "./admin/ingestion-runner.js";
import { createEventFeed } from "./events/event-feed.js";
import { createOperator } from "./operator/create-operator.js";
import { listSessionMessages } from "./operator/operator-conversations.js";
import type { KnowledgeSources } from "./ports/knowledge-sources.js";
import type { ChatModels } from "./ports/chat-model.js";
import type { Clock } from "./ports/clock.js";
import type { Embedder } from "./ports/embedder.js";
import type { Ids } from "./ports/ids.js";
import type { RateLimiter } from "./ports/rate-limiter.js";
import type { SearchIndex } from "./ports/search-index.js";
import type { Storage } from "./ports/storage.js";
import type { WebhookSecrets } from "./ports/webhook-secrets.js";
import type { WidgetSecrets } from "./ports/widget-secrets.js";
import type { Chatbot } from "./domain/chatbot.js";
import { findWidgetChatbot } from "./widget/widget-chatbot.js";
import { rateReply, type FeedbackView, type RateReplyInput } from "./widget/rate-reply.js";
import { createEphemeralWidgetSecrets, verifyWidgetUserHash, widgetSecretOf } from "./widget/widget-secrets.js";
import { createEphemeralWebhookSecrets } from "./webhooks/derived-webhook-secrets.js";
import { createUnansweredWatch, type UnansweredWatch, type UnansweredWatchOptions } from "./chat/unanswered-watch.js";
import { createWebhookDispatcher, type WebhookDispatcherOptions } from "./webhooks/webhook-dispatcher.js";
import type { ParleySettings, RetrievalSettings } from "./settings.js";
import type { ChunkOptions } from "./retrieval/chunker.js";
import { randomIds } from "./support/ids.js";
import { systemClock } from "./support/time.js";
import { createVisitorDesk } from "./widget/visitor.js";
import { createEphemeralVisitorTokens, type VisitorTokens } from "./widget/visitor-tokens.js";

/** The adapters Parley runs on, and settings that differ from docs/design.md §4's defaults. */
export interface ParleyOptions {
  storage: Storage;
  searchIndex: SearchIndex;
  embedder: Embedder;
  chatModels: ChatModels;
  /** Defaults to an in-memory limiter (one process). */
  rateLimiter?: RateLimiter;
  clock?: Clock;
  ids?: Ids;
  /** Defaults to a new bus; subscribe with `parley.events.on(type, handler)`. */
  events?: EventBus;
  /** Reads files and URLs for ingestions (`createKnowledgeSources` of `@parley/knowledge`); absent, only text. */
  knowledgeSources?: KnowledgeSources;
  /** Refuses webhook URLs an API caller may not use (private addresses); absent, any http(s) URL. */
  checkWebhookUrl?: (url: string) => Promise<void>;
  /**
   * Derives webhook signing secrets (`createDerivedWebhookSecrets(masterKey)`). Defaults to a
   * key that lives as long as the process: enough for in-memory storage, but with a lasting
   * database supply a lasting key, or deliveries after a restart stop at a key mismatch.
   */
  webhookSecrets?: WebhookSecrets;
  /**
   * Signs and checks the widget's visitor tokens (`createVisitorTokens(masterKey)`). Defaults to a
   * key that lives as long as the process: tokens then end with it.
   */
  visitorTokens?: VisitorTokens;
  /**
   * Derives widget identity secrets (`createDerivedWidgetSecrets(masterKey)`, the same master key
   * as the webhooks'). Defaults to a key that lives as long as the process, like `webhookSecrets`.
   */
  widgetSecrets?: WidgetSecrets;
  settings?: Partial<Omit<ParleySettings, "retrieval">> & { retrieval?: Partial<RetrievalSettings> };
}

/** The default settings of docs/design.md §4. */
export const DEFAULT_SETTINGS: ParleySettings = {
  keyRequestsPerMinute: 60,
  adminKeyRequestsPerMinute: 600,
  conversationMessagesPerMinute: 20,
  widgetSessionsPerHour: 10,
  widgetMessagesPerMinute: 30,
  historyTurns: 10,
  defaultPlan: { name: "free", monthlyMessages: 1000 },
  maxReplyTokens: 1024,
  retrieval: { keywordCandidates: 20, vectorCandidates: 20, fusion: {}, maxChunks: 5, contextTokenBudget: 2000 },
  identityRules: defaultIdentityRules,
};

/** Creates a Parley instance: the service of the spec plus the administration the CLI exposes. */
export function createParley(options: ParleyOptions) {
  const clock = options.clock ?? systemClock;
  const settings: ParleySettings = {
    ...DEFAULT_SETTINGS,
    ...options.settings,
    retrieval: { ...DEFAULT_SETTINGS.retrieval, ...options.settings?.retrieval },
  };
  const dependencies: Dependencies = {
    storage: options.storage,
    searchIndex: options.searchIndex,
    embedder: options.embedder,
    chatModels: options.chatModels,
    rateLimiter: options.rateLimiter ?? createMemoryRateLimiter({ clock }),
    clock,
    ids: options.ids ?? randomIds,
    events: options.events ?? createEventBus(),
    webhookSecrets: options.webhookSecrets ?? createEphemeralWebhookSecrets(),
    widgetSecrets: options.widgetSecrets ?? createEphemeralWidgetSecrets(),
    settings,
    knowledgeSources: options.knowledgeSources,
    checkWebhookUrl: options.checkWebhookUrl,
    wakeIngestions: () => {
      for (const runner of runners) runner.wake();
    },
    keyRevoked: (keyId) => {
      for (const listener of revocationListeners) listener(keyId);
    },
  };
  const runners = new Set<IngestionRunner>();
  const revocationListeners = new Set<(keyId: string) => void>();
  // Streamed replies still being generated, whether or not anyone reads them.
  const stopReplies = new AbortController();
  const generations: ReplyGenerations = { running: new Set(), abort: stopReplies.signal };

  return {
    /** Subscribe to `conversation.started` and `message.received` in process. */
    events: dependencies.events,
    settings,

    /**
     * Calls `listener` with the id of every key revoked through this instance, right after the
     * revocation is stored (the server ends the key's open event streams); returns the unsubscribe.
     */
    onKeyRevoked: (listener: (keyId: string) => void): (() => void) => {
      revocationListeners.add(listener);
      return () => revocationListeners.delete(listener);
    },
    /** The caller behind an API key; `unauthorized` for a missing, malformed, unknown or revoked key. */
    authenticate: (apiKey: string | undefined | null) => authenticate(dependencies, apiKey),
    /** Counts a request against the caller's per-key rate limit; `rate_limited` when exceeded. */
    admitRequest: (caller: Caller) => admitRequest(dependencies, caller),
    /** The caller's chatbots (not deleted), newest first, in the spec's list form. */
    listChatbots: async (caller: Caller): Promise<ChatbotSummary[]> =>
      (await dependencies.storage.listChatbots(caller.user.id)).map(toChatbotSummary),
    /** One of the caller's chatbots in the spec's detail form; `not_found` otherwise. */
    getChatbot: async (caller: Caller, chatbotId: string): Promise<ChatbotDetail> =>
      toChatbotDetail(await findOwnedChatbot(dependencies, caller.user, chatbotId)),
    /** Answers a message sent to one of the caller's chatbots (the spec's chat operation). */
    chat: (caller: Pick<Caller, "user">, chatbotId: string, body: unknown): Promise<ChatResult> => chat(dependencies, caller, chatbotId, body),
    /**
     * The same chat from the API key: authenticated and limited with the chat's own reads, in
     * the refusal order of `authenticate`, `admitRequest`, then `chat` (the spec's route).
     * `readBody` gives the body or its refusal; `progress` says what passed, for the headers.
     */
    chatWithKey: (apiKey: string | undefined | null, chatbotId: string, readBody: () => Promise<unknown>, progress: KeyedChatProgress): Promise<ChatResult> =>
      chatWithKey(dependencies, apiKey, chatbotId, readBody, progress),
    /**
     * The same chat, streamed: yields the stored user message, the model's deltas, then the stored
     * reply with its sources (or `handoff` while an agent has the conversation); see
     * {@link ChatStreamEvent}. Errors of steps 1–4 come from the first `next()`, so an HTTP edge
     * can await it before it answers. The reply is generated and stored even if the reader stops.
     */
    chatStream: (caller: Pick<Caller, "user">, chatbotId: string, body: unknown, options: ChatStreamOptions = {}): AsyncGenerator<ChatStreamEvent> =>
      chatStream(dependencies, caller, chatbotId, body, options, generations),
    /** Resolves once every streamed reply under way now has been stored or has failed (for a clean shutdown, and tests). */
    whenRepliesSettled: async (): Promise<void> => void (await Promise.all([...generations.running])),
    /**
     * Ends every streamed reply still being generated, as its own `signal` would: nothing of it is
     * stored and its conversation needs an agent. For a shutdown that cannot wait any longer;
     * streamed chats started afterwards fail the same way at once.
     */
    abortReplies: (reason: unknown = new Error("Parley is shutting down.")): void => stopReplies.abort(reason),
    /**
     * The caller a chatbot's chats run as without an API key: its owner. The widget's routes chat
     * as `chat(await parley.chatbotOwner(id), id, { message, session_id })`; `not_found` for a
     * missing or deleted chatbot.
     */
    chatbotOwner: (chatbotId: string) => chatbotOwner(dependencies, chatbotId),
    /**
     * The chatbot behind a public widget route (docs/design.md §14): live with its widget on;
     * `not_found` ("Chatbot not found.") for a malformed id, a missing or deleted chatbot, or a widget that is off.
     */
    widgetChatbot: (chatbotId: string): Promise<Chatbot> => findWidgetChatbot(dependencies, chatbotId),
    /**
     * The chatbot's current widget identity secret (docs/design.md §14), derived from the master
     * key and the nonce stored with it; null while its owner has made none. Never log it.
     */
    widgetSecret: (chatbot: Pick<Chatbot, "id" | "widgetSecretNonce">): string | null => widgetSecretOf(dependencies.widgetSecrets, chatbot),
    /**
     * Whether `userHash` is the lowercase hex HMAC-SHA256 of `userId` under the chatbot's current
     * widget secret (constant-time); false when it has no secret or either value is not a string.
     */
    verifyVisitorIdentity: (chatbot: Pick<Chatbot, "id" | "widgetSecretNonce">, userId: unknown, userHash: unknown): boolean =>
      verifyWidgetUserHash(widgetSecretOf(dependencies.widgetSecrets, chatbot), userId, userHash),
    /**
     * Rates a model reply of the (chatbot, session) conversation, `{rating: "up" | "down",
     * comment?}` (comment at most 1,000 characters, trimmed); rating again replaces it. Resolves
     * to the stored rating `{rating, comment, created_at}`; fires `message.rated`. `not_found`
     * when the chatbot is missing or deleted, or the message is not a model reply of that
     * conversation; `invalid_request` for a bad rating or comment.
     */
    rateReply: (chatbotId: string, sessionId: string, messageId: string, input: RateReplyInput | unknown): Promise<FeedbackView> =>
      rateReply(dependencies, chatbotId, sessionId, messageId, input),
    /** A session's messages, oldest first, for integrations without webhooks (any key of the owner). */
    listSessionMessages: (caller: Caller, chatbotId: string, sessionId: string, query: { after?: unknown } = {}) =>
      listSessionMessages(dependencies, caller, chatbotId, sessionId, query),

    /**
     * The visitor's side of the chat widget (docs/design.md §14): a chatbot's public appearance,
     * visitor sessions and their tokens, the per-address limits, and visitor messages as chats of
     * the owner. The server's `/v1/widget/...` routes are thin doors onto it.
     */
    widget: createVisitorDesk(dependencies, {
      tokens: options.visitorTokens ?? createEphemeralVisitorTokens(),
      generations,
    }),

    /** The operator API (docs/design.md §9): an admin-scoped caller's chatbots, knowledge, conversations, keys, webhooks, usage. */
    operator: createOperator(dependencies),

    /** Operations for the owner of the deployment (the CLI), not scoped to an API key. */
    admin: {
      setPlan: (name: string, monthlyMessages: number) => setPlan(dependencies, name, monthlyMessages),
      createUser: (input: { email: string; plan?: string; monthlyMessages?: number }) => createUser(dependencies, input),
      /** Every user, oldest first: how an operator finds the id a key is issued for. */
      listUsers: () => dependencies.storage.listUsers(),
      showUser: (idOrEmail: string) => showUser(dependencies, idOrEmail),
      createApiKey: (input: { userId: string; name?: string; scope?: string }) => createApiKey(dependencies, input),
      revokeApiKey: (keyId: string) => revokeApiKey(dependencies, keyId),
      createChatbot: (input: CreateChatbotInput) => createChatbot(dependencies, input),
      pauseChatbot: (chatbotId: string) => setChatbotActive(dependencies, chatbotId, false),
      resumeChatbot: (chatbotId: string) => setChatbotActive(dependencies, chatbotId, true),
      deleteChatbot: (chatbotId: string) => deleteChatbot(dependencies, chatbotId),
      /** Changes a chatbot's settings, its widget's included (`{ widget: {...} }`); the CLI's `parley widget`. */
      changeChatbot: (chatbotId: string, input: ChatbotSettingsInput) => changeChatbot(dependencies, chatbotId, input),
      /** A live chatbot's widget settings in the admin view's form (the title resolved, `has_secret`). */
      showWidget: async (chatbotId: string) => toWidgetView(await findLiveChatbot(dependencies, chatbotId)),
      /** Changes any part of a live chatbot's widget settings (checked as the PATCH route checks them); the admin view's form. */
      changeWidget: async (chatbotId: string, part: unknown) => toWidgetView(await changeChatbot(dependencies, chatbotId, { widget: part })),
      /** A new widget identity secret for the chatbot, replacing the old one; returned once, never stored. */
      createWidgetSecret: (chatbotId: string) => rotateWidgetSecret(dependencies, chatbotId),
      ingestDocument: (chatbotId: string, document: DocumentInput, chunking?: ChunkOptions) =>
        ingestDocument(dependencies, chatbotId, document, chunking),
      /** Many documents at once, written in batches: much faster than one `ingestDocument` each. */
      ingestDocuments: (chatbotId: string, documents: DocumentInput[], options?: IngestDocumentsOptions) =>
        ingestDocuments(dependencies, chatbotId, documents, options),
      removeDocument: (chatbotId: string, source: string) => removeDocument(dependencies, chatbotId, source),
      reindexChatbot: (chatbotId: string) => reindexChatbot(dependencies, chatbotId),
      startTakeover: (chatbotId: string, sessionId: string) => setHumanTakeover(dependencies, chatbotId, sessionId, true),
      endTakeover: (chatbotId: string, sessionId: string) => setHumanTakeover(dependencies, chatbotId, sessionId, false),
      replyAsAgent: (chatbotId: string, sessionId: string, content: string) => replyAsAgent(dependencies, chatbotId, sessionId, content),
      showConversation: (chatbotId: string, sessionId: string) => showConversation(dependencies, chatbotId, sessionId),
      createWebhookSubscription: (input: CreateWebhookInput) => createWebhookSubscription(dependencies, input),
      listWebhookSubscriptions: (userId: string) => dependencies.storage.listWebhookSubscriptions(userId),
      removeWebhookSubscription: (subscriptionId: string) => dependencies.storage.deleteWebhookSubscription(subscriptionId),
      listWebhookDeliveries: (options?: { status?: string; limit?: number }) => listWebhookDeliveries(dependencies, options),
      retryWebhookDelivery: (deliveryId: string) => retryWebhookDelivery(dependencies, deliveryId),
    },

    /** Live events from the outbox, one reader for every subscriber (the SSE route uses it). */
    createEventFeed: (options: { pollMs?: number } = {}) => createEventFeed({ storage: dependencies.storage, events: dependencies.events, ...options }),

    /** A runner of background ingestions; call `start()` on it (the server does) or `runOnce()`. */
    createIngestionRunner: (options: Omit<IngestionRunnerOptions, "sources"> = {}): IngestionRunner => {
      const runner = createIngestionRunner(dependencies, { ...options, sources: dependencies.knowledgeSources });
      runners.add(runner);
      return runner;
    },

    /**
     * The watch that marks, once after a start, the conversations a process left without a reply
     * when it ended; call `start()` on it (the server does) or `runOnce()`.
     */
    createUnansweredWatch: (options: UnansweredWatchOptions = {}): UnansweredWatch => createUnansweredWatch(dependencies, options),

    /**
     * A webhook dispatcher on this instance's storage, secrets, clock, ids and event bus; call
     * `start()` on it (the server does) or `runOnce()`.
     */
    createWebhookDispatcher: (overrides: Partial<WebhookDispatcherOptions> = {}) =>
      createWebhookDispatcher({
        storage: dependencies.storage,
        secrets: dependencies.webhookSecrets,
        clock: dependencies.clock,
        ids: dependencies.ids,
        events: dependencies.events,
        checkUrl: dependencies.checkWebhookUrl,
        ...overrides,
      }),
  };
}

/** A Parley instance. */
export type Parley = ReturnType<typeof createParley>;
