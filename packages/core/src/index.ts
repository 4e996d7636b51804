export * from "./domain/chatbot.js";
export * from "./domain/widget.js";
export * from "./chatbots/widget-settings.js";
export * from "./domain/conversation.js";
export * from "./domain/events.js";
export * from "./domain/user.js";
export * from "./domain/webhook.js";
export * from "./domain/ingestion.js";
export type * from "./domain/knowledge.js";
export * from "./errors.js";
export type * from "./ports/chat-model.js";
export type * from "./ports/clock.js";
export type * from "./ports/embedder.js";
export type * from "./ports/ids.js";
export type * from "./ports/rate-limiter.js";
export type * from "./ports/search-index.js";
export type * from "./ports/storage.js";
export { readChatStateInParts, readKeyedChatStateInParts, type ChatState, type KeyedChatState, type ReadChatState, type ReadKeyedChatState } from "./ports/chat-state.js";
export type * from "./ports/knowledge-sources.js";
export type * from "./ports/upload-store.js";
export { fuseByReciprocalRank, type FusedHit } from "./retrieval/fusion.js";
export { checkEmbedderSpace, hybridSearchInParts } from "./retrieval/hybrid-search.js";
export { formatTimestamp, monthOf, startOfNextMonth, systemClock } from "./support/time.js";
export { isUuid, randomIds } from "./support/ids.js";
export { sha256Hex } from "./support/hash.js";
export { redactUrl } from "./support/redact-url.js";
export { createParley, DEFAULT_SETTINGS, type Parley, type ParleyOptions } from "./parley.js";
export type { ParleySettings, RetrievalSettings } from "./settings.js";
export type { Dependencies } from "./dependencies.js";
export { createEventBus, type EventBus } from "./events/event-bus.js";
export { API_KEY_PREFIX } from "./auth/authenticate.js";
export { toChatbotDetail, toChatbotSummary } from "./chatbots/chatbot-views.js";
export { toMessageView, toSourceView } from "./operator/views.js";
export { slugify } from "./chatbots/slugify.js";
export type { ChatResult } from "./chat/chat-pipeline.js";
export type { KeyedChatProgress } from "./chat/keyed-chat.js";
export type { ChatStreamEvent, ChatStreamOptions } from "./chat/chat-stream.js";
export { replySources } from "./chat/reply-sources.js";
export type { SelectedChunk } from "./chat/retrieve-context.js";
export { parseChatInput, MAX_MESSAGE_CHARS, MAX_SESSION_ID_CHARS, type ChatInput } from "./chat/chat-input.js";
export { buildPrompt, type ContextChunk, type Prompt } from "./chat/prompt-builder.js";
export { defaultIdentityRules } from "./chat/identity-rules.js";
export { retrieveCandidates, retrieveContext, selectContext, type RetrieveCandidates } from "./chat/retrieve-context.js";
export { chunkSections, chunkText, type ChunkOptions, type Section } from "./retrieval/chunker.js";
export { chunkDocument, embedInBatches } from "./admin/ingestion.js";
export type { IngestDocumentsOptions, IngestionProgress } from "./admin/bulk-ingestion.js";
export { DEFAULT_FALLBACK_MESSAGE, DEFAULT_SYSTEM_PROMPT, type CreateChatbotInput } from "./chatbots/manage-chatbots.js";
export type { CreateWebhookInput } from "./admin/webhooks.js";
export { createLocalEmbedder, LOCAL_EMBEDDER_FUSION, type LocalEmbedderOptions } from "./retrieval/local-embedder.js";
export { MAX_QUERY_TERMS, queryWords, stem, words } from "./retrieval/tokenizer.js";
export type * from "./ports/webhook-secrets.js";
export type * from "./ports/storage-webhooks.js";
export type * from "./ports/storage-operator.js";
export type * from "./ports/storage-agents.js";
export { createDerivedWebhookSecrets, createEphemeralWebhookSecrets, MIN_MASTER_KEY_BYTES } from "./webhooks/derived-webhook-secrets.js";
export { createWebhookDispatcher, DEFAULT_WEBHOOK_TIMEOUT_MS, type WebhookDispatcher, type WebhookDispatcherOptions } from "./webhooks/webhook-dispatcher.js";
export type { AttemptReport } from "./webhooks/attempt-delivery.js";
export { DEFAULT_RETRY_CEILINGS_MS, DEFAULT_RETRY_POLICY, DEFAULT_RETRY_WINDOW_MS, nextRetryAt, type RetryPolicy } from "./webhooks/retry-schedule.js";
export { signWebhook, webhookBody, webhookHeaders } from "./webhooks/sign-webhook.js";
export { deliveryStateAfter } from "./webhooks/delivery-state.js";
export { createEventFeed, type EventFeed, type FeedListener } from "./events/event-feed.js";
export { createIngestionRunner, type IngestionRunner, type IngestionRunnerOptions } from "./admin/ingestion-runner.js";
export { createUnansweredWatch, UNANSWERED_AFTER_MS, type UnansweredWatch, type UnansweredWatchOptions } from "./chat/unanswered-watch.js";
export { INGESTION_LEASE_MS, runIngestion, queueIngestion } from "./admin/ingestion-jobs.js";
export type { Operator } from "./operator/create-operator.js";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, type Page, type PageRequest } from "./operator/pages.js";
export { MAX_SEARCH_RESULTS } from "./operator/operator-knowledge.js";
export type { ConversationQuery } from "./operator/operator-conversations.js";
export type { ConversationTeamFacts } from "./operator/views.js";
export { CHATBOT_TEXT_LIMITS, type ChatbotSettingsInput } from "./chatbots/manage-chatbots.js";
export { AGENT_SCOPE_REFUSAL, CHAT_SCOPE_REFUSAL, requireAdminScope, requireAgentScope } from "./auth/authenticate.js";
export { documentTypeOf, documentBytesOf } from "./retrieval/document-facts.js";
export { messageRated, messageSent, takeoverChanged } from "./events/outbox-events.js";
export { toVisitorMessageView } from "./widget/visitor-view.js";
export { createVisitorTokens, createEphemeralVisitorTokens, VISITOR_TOKEN_TTL_MICROS, type VisitorTokens } from "./widget/visitor-tokens.js";
export {
  IDENTITY_NOT_VERIFIED,
  isVisitorEvent,
  MAX_USER_ID_CHARS,
  VISITOR_UNAUTHORIZED,
  visitorLimitDetail,
  type VisitorDesk,
  type VisitorLimit,
  type WidgetChatbot,
} from "./widget/visitor.js";
export type * from "./ports/widget-secrets.js";
export { createDerivedWidgetSecrets, createEphemeralWidgetSecrets, verifyWidgetUserHash, widgetUserHash } from "./widget/widget-secrets.js";
export { toAdminChatbot, toWidgetView } from "./chatbots/chatbot-views.js";
export type * from "./ports/storage-feedback.js";
export { checkRating, rateReply, toFeedbackView, type FeedbackView, type RateReplyInput } from "./widget/rate-reply.js";
