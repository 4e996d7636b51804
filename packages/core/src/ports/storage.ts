import type { Chatbot, NewChatbot } from "../domain/chatbot.js";
import type { Conversation, ConversationEvent, ConversationSummary, Message } from "../domain/conversation.js";
import type { MarkConversationRead } from "./storage-agents.js";
import type { FeedbackCount, RateMessage } from "./storage-feedback.js";
import type { ChatState, KeyedChatState, ReadChatState, ReadKeyedChatState } from "./chat-state.js";
import type { OutboxEvent } from "../domain/events.js";
import type { Ingestion } from "../domain/ingestion.js";
import type { ApiKey, Plan, User } from "../domain/user.js";
import type { ClaimedDelivery, DeliveryStatus, WebhookDelivery, WebhookSubscription } from "../domain/webhook.js";
import type { ClaimDueDeliveries, DeliveryAttempt, FanOutOutboxEvents } from "./storage-webhooks.js";
import type {
  AppendAssistantMessage,
  ClaimIngestion,
  ConversationFilter,
  IngestionProgressUpdate,
  PositionedEvent,
  ReadOutbox,
  UsageBreakdown,
} from "./storage-operator.js";

/** The fields of a chatbot its owner may change after creation. */
export type ChatbotChanges = Partial<Pick<Chatbot, "isActive" | "deletedAt" | "name" | "systemPrompt" | "fallbackMessage" | "model" | "provider" | "updatedAt" | "widget" | "widgetSecretNonce">>;

/** Everything {@link Storage.acceptUserMessage} needs; ids and times come from the core. */
export interface AcceptUserMessage {
  /** The owner of the chatbot, whose monthly quota the message counts against. */
  userId: string;
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
  /** The owner's monthly limit of user messages. */
  monthlyLimit: number;
  chatbotId: string;
  sessionId: string;
  content: string;
  /** Used only when the conversation does not exist yet. */
  newConversationId: string;
  /**
   * The conversation of (chatbot, session) as the caller read it (null: there was none), if it
   * did. A hint only: an adapter over a networked database builds the step from it and writes
   * it in one statement that applies only while the stored conversation is still this one;
   * otherwise it reads again. The outcome is the same either way.
   */
  conversation?: Conversation | null;
  messageId: string;
  /** Ids for the outbox events this call may write (at most two). */
  eventIds: [string, string];
  /** How many stored messages before this one to return as history. */
  historyLimit: number;
  /** Builds the outbox events from what the transaction decided (new conversation, takeover). */
  events: (accepted: AcceptedFacts) => OutboxEvent[];
  at: number;
}

/** What the transaction decided, for building events. */
export interface AcceptedFacts {
  conversation: Conversation;
  conversationCreated: boolean;
  message: Message;
}

/** The outcome of {@link Storage.acceptUserMessage}. */
export type AcceptUserMessageResult =
  /** Refused: `used` is the month's count, at or above the limit; nothing was written. */
  | { accepted: false; used: number }
  | {
      accepted: true;
      conversation: Conversation;
      conversationCreated: boolean;
      message: Message;
      /** The stored messages before this one, oldest first, at most `historyLimit`. */
      history: Message[];
      /** The outbox events written in the same transaction. */
      events: OutboxEvent[];
    };

/** Everything {@link Storage.setHumanTakeover} needs. */
export interface SetHumanTakeover {
  chatbotId: string;
  sessionId: string;
  humanTakeover: boolean;
  /** Who changes it (the key's name; null or absent from the CLI), kept on the timeline when the flag changes. */
  by?: string | null;
  newConversationId: string;
  /**
   * Builds the step's events from what it decided: `conversation.started` when it created the
   * conversation, a takeover event when the flag changed (a new conversation taken over counts).
   */
  events: (facts: { conversation: Conversation; created: boolean; changed: boolean }) => OutboxEvent[];
  at: number;
}

/**
 * Durable state of Parley. Every method is one atomic step: it either happens whole or not
 * at all, and no other call's writes interleave with it. An adapter over a synchronous driver
 * runs each method as one transaction; an adapter over a networked database runs it as one
 * database transaction. No method leaves a transaction open when it returns.
 */
export interface Storage {
  /** Creates or updates a plan by name. */
  upsertPlan(plan: Plan): Promise<Plan>;
  /** The plan of that name, or null. */
  getPlan(name: string): Promise<Plan | null>;
  /** Returns the plan of that name, creating it with `plan` first if it does not exist. */
  ensurePlan(plan: Plan): Promise<Plan>;

  /** Stores a new user; refused with `conflict` when the email is taken (case-insensitive). */
  createUser(user: User): Promise<User>;
  /** The user with that id, or null. */
  getUser(id: string): Promise<User | null>;
  /** Every user, oldest first (ties by id ascending): for the operator of the deployment (the CLI). */
  listUsers(): Promise<User[]>;

  /** Stores a new API key (its hash only). */
  createApiKey(key: ApiKey): Promise<ApiKey>;
  /** The key with that hash and its user, or null; revoked keys are returned too. */
  findApiKeyByHash(keyHash: string): Promise<{ apiKey: ApiKey; user: User } | null>;
  /** Marks a key revoked (idempotent: a second call keeps the first `revokedAt`); null when no such key exists. */
  revokeApiKey(id: string, at: number): Promise<ApiKey | null>;
  /** The key with that id, or null. */
  getApiKey(id: string): Promise<ApiKey | null>;
  /** The user's keys, revoked ones included, newest first (ties by id ascending). */
  listApiKeys(userId: string): Promise<ApiKey[]>;
  /** Records that the key authenticated a request at `at`. */
  touchApiKey(id: string, at: number): Promise<void>;

  /**
   * Stores a new chatbot under the first free slug of `baseSlug`, `baseSlug-2`, `baseSlug-3`, …
   * among the owner's chatbots that are not deleted, chosen in the same atomic step.
   */
  createChatbot(chatbot: NewChatbot, baseSlug: string): Promise<Chatbot>;
  /** The chatbot with that id, deleted or not, or null. */
  getChatbot(id: string): Promise<Chatbot | null>;
  /** The owner's chatbots that are not deleted, newest first, ties by id ascending. */
  listChatbots(ownerId: string): Promise<Chatbot[]>;
  /** Applies changes to a chatbot; null when no such chatbot exists. */
  updateChatbot(id: string, changes: ChatbotChanges): Promise<Chatbot | null>;

  /** User messages counted for the user in that month (`YYYY-MM`). */
  getMonthlyUsage(userId: string, month: string): Promise<number>;
  /**
   * The chatbot, the user's plan and month's usage, and the conversation of (chatbot, session):
   * what a chat checks before it accepts a message, in one read (one round trip on a networked
   * database).
   */
  readChatState(input: ReadChatState): Promise<ChatState>;
  /**
   * The API key with that hash and its user, and `readChatState` as that user, in one read:
   * what a chat sent with an API key checks before it accepts a message (one round trip on a
   * networked database, where the key and the state would be two).
   */
  readKeyedChatState(input: ReadKeyedChatState): Promise<KeyedChatState>;

  /**
   * The heart of a chat call, as one atomic step: reserves one message of the month's quota
   * if any is left (else returns `accepted: false` and writes nothing), finds or creates the
   * conversation, appends the user message, writes its outbox events, and returns the
   * history before it. Concurrent calls never exceed the limit.
   */
  acceptUserMessage(input: AcceptUserMessage): Promise<AcceptUserMessageResult>;
  /**
   * Appends an assistant message (the model's reply or a human agent's) with its outbox events,
   * as one step: the conversation's activity, count and `needsAttention` change with it.
   */
  appendAssistantMessage(input: AppendAssistantMessage): Promise<{ message: Message; events: OutboxEvent[] }>;
  /**
   * Rates a model reply of the conversation of (chatbot, session), replacing an earlier rating,
   * and writes the step's outbox events, as one step; the conversation's activity does not change.
   * Null, and nothing written, when the message is not a model reply of that conversation.
   */
  rateMessage(input: RateMessage): Promise<{ message: Message; events: OutboxEvent[] } | null>;
  /**
   * Per chatbot of the owner (ascending id; only those with any), the model replies whose
   * current rating was given from `from` (inclusive) to `to` (exclusive), up and down.
   */
  countFeedback(userId: string, range: { from: number; to: number }): Promise<FeedbackCount[]>;
  /** Marks a conversation as needing an agent, reason `provider_failed` (the provider failed on its latest message). */
  markNeedsAttention(conversationId: string, at: number): Promise<void>;
  /**
   * Marks as needing an agent, reason `provider_failed`, every conversation the chatbot has (not
   * taken over) whose latest message is a visitor's, that message and the conversation's activity
   * both before `before`, when no agent has taken it over or handed it back since that message
   * and it needs no agent already: a reply cut off with its process (a crash) left it so.
   * Activity moves to `at`, as `markNeedsAttention` does. Returns how many it marked.
   */
  markUnansweredConversations(input: { before: number; at: number }): Promise<number>;

  /** The conversation of (chatbotId, sessionId), or null. */
  findConversation(chatbotId: string, sessionId: string): Promise<Conversation | null>;
  /** The conversation with that id and its latest message, or null. */
  getConversation(id: string): Promise<ConversationSummary | null>;
  /** The owner's conversations, newest activity first (ties by id ascending), at most `limit`. */
  listConversations(filter: ConversationFilter): Promise<ConversationSummary[]>;
  /**
   * Starts or ends a takeover, creating the conversation (with its events) when needed; a change
   * of the flag is kept on the conversation's timeline with `by` and `at`.
   */
  setHumanTakeover(input: SetHumanTakeover): Promise<{ conversation: Conversation; created: boolean; changed: boolean; events: OutboxEvent[] }>;
  /** Every message of a conversation in the order stored (oldest first, also when times are equal); [] when unknown. */
  listMessages(conversationId: string): Promise<Message[]>;
  /**
   * The messages stored after the message `afterMessageId` of the same conversation, oldest
   * first; null when that message is not one of the conversation's.
   */
  listMessagesAfter(conversationId: string, afterMessageId: string): Promise<Message[] | null>;

  /**
   * Marks the message `upToMessageId` and every earlier message of the conversation read for the
   * key; read state never moves back (an earlier message changes nothing). False when that
   * message is not one of the conversation's.
   */
  markConversationRead(input: MarkConversationRead): Promise<boolean>;
  /** Per conversation id: its visitor messages stored after the key's last read one (all of them when it read none). */
  countUnread(apiKeyId: string, conversationIds: readonly string[]): Promise<Record<string, number>>;
  /** Per conversation id: its takeover timeline, oldest first ([] when none). */
  listConversationEvents(conversationIds: readonly string[]): Promise<Record<string, ConversationEvent[]>>;

  /** The oldest `limit` outbox events, in the order they were written. */
  listOutboxEvents(options: { limit: number }): Promise<OutboxEvent[]>;
  /** Outbox events after a position, oldest first: the feed live streams read. */
  readOutbox(options: ReadOutbox): Promise<PositionedEvent[]>;
  /** The position of an event (to resume after it), or null for an unknown id. */
  outboxPosition(eventId: string): Promise<number | null>;
  /** The position of the newest event; 0 for an empty outbox. */
  latestOutboxPosition(): Promise<number>;

  /** User messages of the owner's chatbots from `from` (inclusive) to `to` (exclusive), per chatbot and per UTC day. */
  getUsageBreakdown(userId: string, range: { from: number; to: number }): Promise<UsageBreakdown>;

  /** Stores a new ingestion (queued). */
  createIngestion(ingestion: Ingestion): Promise<Ingestion>;
  /** The ingestion with that id, or null. */
  getIngestion(id: string): Promise<Ingestion | null>;
  /**
   * One step: leases the next ingestion to run, a queued one or a running one whose lease has
   * ended (its runner died), marks it running from scratch (progress reset), counts the claim in
   * `attempts` and returns it; null when none. Fair between users: a user with `perUser` live
   * leases is passed over; among the others, the user with the fewest live leases, then the one
   * whose last ingestion started longest ago (never first), then the oldest ingestion, goes first.
   */
  claimIngestion(input: ClaimIngestion): Promise<Ingestion | null>;
  /** Records progress (and extends the lease) or the end of a running ingestion; null when unknown. */
  updateIngestion(id: string, update: IngestionProgressUpdate): Promise<Ingestion | null>;

  /** Stores a webhook subscription. */
  createWebhookSubscription(subscription: WebhookSubscription): Promise<WebhookSubscription>;
  /** The user's webhook subscriptions, oldest first. */
  listWebhookSubscriptions(userId: string): Promise<WebhookSubscription[]>;
  /**
   * Removes a subscription; false when there was none. Its pending deliveries become `failed`
   * (error `subscription removed`) in the same step, and stay listed as history.
   */
  deleteWebhookSubscription(id: string): Promise<boolean>;

  /**
   * One step: takes the oldest `limit` undispatched outbox events, creates one pending delivery
   * (due at `at`) per matching subscription, and marks the events dispatched. A subscription
   * matches an event of its user from its creation time on, narrowed by chatbot and event
   * types. Each event is fanned out exactly once, whoever calls.
   */
  fanOutOutboxEvents(input: FanOutOutboxEvents): Promise<{ events: number; deliveries: number }>;
  /**
   * One step: leases pending deliveries due at `now`, most overdue first, counting one attempt
   * on each and making it due again only at `leaseUntil`. Another caller on the same storage
   * therefore never claims the same attempt, and a claimant that dies is retried after the lease.
   */
  claimDueDeliveries(input: ClaimDueDeliveries): Promise<ClaimedDelivery[]>;
  /**
   * Records the outcome of a claimed attempt: delivered, retry at a time, or failed, and ends
   * its lease. Ignored (null) unless that attempt is the delivery's current one and still open,
   * so a late or repeated outcome never overwrites a newer one. Returns the delivery as recorded.
   */
  recordDeliveryAttempt(input: DeliveryAttempt): Promise<WebhookDelivery | null>;
  /**
   * Deliveries, newest first (the reverse of their creation order), at most `limit`, optionally
   * only one status, one user's (by their subscriptions, removed ones included), or only those
   * after the delivery `afterId` in that order.
   */
  listDeliveries(options: { status?: DeliveryStatus; limit: number; userId?: string; afterId?: string }): Promise<WebhookDelivery[]>;
  /** The delivery with that id, or null. */
  getDelivery(id: string): Promise<WebhookDelivery | null>;
  /**
   * Makes a delivery due at `at`: a failed or delivered one becomes pending again with its
   * attempts reset (a new retry schedule); a pending one is only brought forward, unless an
   * attempt is in flight. Null when there is no such delivery or its subscription was removed.
   */
  retryDelivery(id: string, at: number): Promise<WebhookDelivery | null>;

  /** Releases what the adapter opened (a database handle it was given stays open for its owner). */
  close(): Promise<void>;
}

/** The operator part of the Storage port served apart by adapters: inbox lists, the outbox feed, usage, ingestions. */
export type OperatorStorage = Pick<
  Storage,
  | "getConversation"
  | "listConversations"
  | "listMessagesAfter"
  | "readOutbox"
  | "outboxPosition"
  | "latestOutboxPosition"
  | "getUsageBreakdown"
  | "createIngestion"
  | "getIngestion"
  | "claimIngestion"
  | "updateIngestion"
>;

/** The team part of the Storage port: read state per key and the takeover timeline. */
export type AgentStorage = Pick<Storage, "markConversationRead" | "countUnread" | "listConversationEvents">;

/** The webhook part of the Storage port: subscriptions and their deliveries. */
export type WebhookStorage = Pick<
  Storage,
  | "createWebhookSubscription"
  | "listWebhookSubscriptions"
  | "deleteWebhookSubscription"
  | "fanOutOutboxEvents"
  | "claimDueDeliveries"
  | "recordDeliveryAttempt"
  | "listDeliveries"
  | "getDelivery"
  | "retryDelivery"
>;
