import type { Database } from "better-sqlite3";
import { conflict, newConversation, newUserMessage, readChatStateInParts, readKeyedChatStateInParts, widgetSettingsFrom } from "@parley/core";
import type { ApiKey, Chatbot, ChatbotChanges, Conversation, Storage, User } from "@parley/core";
import { openDatabase } from "./database.js";
import { outboxEventFromRow, planFromRow, userFromRow } from "@parley/core/storage-rows";
import { sqliteRows, toFlag } from "./sqlite-storage-rows.js";
import { createReadCache, DEFAULT_READ_CACHE_LIMITS } from "./sqlite-storage-read-cache.js";
import { createSqliteWebhookStorage } from "./sqlite-webhook-storage.js";
import { createSqliteOperatorStorage } from "./sqlite-operator-storage.js";
import { createSqliteAgentStorage } from "./sqlite-agent-storage.js";
import { createSqliteFeedbackStorage } from "./sqlite-feedback-storage.js";
import { createGroupCommit } from "./group-commit.js";
import {
  firstFreeSlug,
  insertConversation,
  insertMessage,
  insertOutboxEvents,
  prepareStorageStatements,
} from "./sqlite-storage-statements.js";

/** How long a key's touch waits to be written with the others (`last_used_at` is kept to the minute). */
const TOUCH_DELAY_MS = 1_000;
/** Conversations (by rowid) the watch for unanswered messages looks at in one statement. */
const SWEEP_SLICE = 2_000;
/** The fields `updateChatbot` writes: exactly the keys of ChatbotChanges. */
const CHANGEABLE_FIELDS = ["isActive", "deletedAt", "name", "systemPrompt", "fallbackMessage", "model", "provider", "updatedAt", "widget", "widgetSecretNonce"] as const satisfies readonly (keyof ChatbotChanges)[];
/** A chatbot the read cache may hold, copied so a caller's changes never reach the cache. */
const copyChatbot = (chatbot: Chatbot): Chatbot => ({ ...chatbot, widget: widgetSettingsFrom(chatbot.widget) });
// Stops compiling when ChatbotChanges gains a field the list (and the UPDATE statement) lacks.
const _everyChangeableField: [Exclude<keyof ChatbotChanges, (typeof CHANGEABLE_FIELDS)[number]>] extends [never] ? true : false = true;

/**
 * Either a handle from `openDatabase` (the caller closes it) or a path to open (closed by
 * `close()`); `readCache` bounds the read cache (entries; 0 turns that part off).
 */
export type SqliteStorageOptions = ({ database: Database } | { path: string; busyTimeoutMs?: number }) & {
  readCache?: Partial<typeof DEFAULT_READ_CACHE_LIMITS>;
};

/** The Storage port on SQLite, with the read cache's request mark for a server (sqlite-storage-read-cache.ts). */
export interface SqliteStorage extends Storage {
  /** An outside request starts: its reads may share one check of other connections' commits. */
  requestStarted(): void;
}

/**
 * The Storage port on better-sqlite3. Each method runs as one synchronous transaction
 * (IMMEDIATE for writes, so the write lock is taken before the first read and two connections
 * cannot both read the same quota and both write) and only then resolves its promise: no
 * transaction is ever open across an `await`, and a throw anywhere rolls the whole step back.
 * The chat's two writes (`acceptUserMessage`, `appendAssistantMessage`) arriving within one turn
 * of the event loop share one such transaction and its commit, each step still atomic on its own
 * (group-commit.ts). API keys with their owner and chatbots are read through a cache that
 * empties itself whenever the database may have changed (sqlite-storage-read-cache.ts); callers
 * get copies.
 */
export function createSqliteStorage(options: SqliteStorageOptions): SqliteStorage {
  const ownsDatabase = !("database" in options);
  const database = "database" in options ? options.database : openDatabase(options);
  const statements = prepareStorageStatements(database);
  // One transaction wrapper for every step; better-sqlite3 caches its BEGIN/COMMIT statements.
  const transaction = database.transaction((step: () => unknown) => step());
  const write = <Result>(step: () => Result): Result => transaction.immediate(step) as Result;
  const read = <Result>(step: () => Result): Result => transaction.deferred(step) as Result;
  const cache = createReadCache(database);
  const limits = { ...DEFAULT_READ_CACHE_LIMITS, ...options.readCache };
  // For steps that write none of the cached tables (users, plans, api_keys, chatbots).
  const writeKeepingCache = <Result>(step: () => Result): Result => cache.keepingCache(() => write(step));
  // The chat's two writes, a message accepted and a reply stored, share commits (group-commit.ts).
  const chatWrites = createGroupCommit(database, writeKeepingCache);
  const keysByHash = cache.map<{ apiKey: ApiKey; user: User }>(limits.apiKeys);
  const chatbotsById = cache.map<Chatbot>(limits.chatbots);
  const chatbotsByOwner = cache.map<Chatbot[]>(limits.chatbots);
  const webhooks = createSqliteWebhookStorage(database, writeKeepingCache);
  // `last_used_at` is kept to the minute (core's authenticate), so touches are not worth a
  // commit each: they wait here, by key id, and are written together in one transaction within
  // a second (and before this adapter reads a key's row, and on close). Reads through this
  // adapter see them at once; another process sees them within the second.
  const pendingTouches = new Map<string, number>();
  let touchTimer: ReturnType<typeof setTimeout> | undefined;
  const writeTouches = () => {
    clearTimeout(touchTimer);
    touchTimer = undefined;
    if (pendingTouches.size === 0 || !database.open) return;
    const touches = [...pendingTouches];
    pendingTouches.clear();
    try {
      writeKeepingCache(() => {
        for (const [id, at] of touches) statements.touchApiKey.run(at, id);
      });
    } catch (error) {
      // The database is busy (another process holds the write lock): keep them for the next try.
      for (const [id, at] of touches) if (!pendingTouches.has(id)) pendingTouches.set(id, at);
      scheduleTouches();
      throw error;
    }
  };
  const scheduleTouches = () => {
    if (touchTimer !== undefined) return;
    touchTimer = setTimeout(() => {
      try {
        writeTouches();
      } catch {
        // Retried by the timer writeTouches set again; a last use is advisory, never worth a crash.
      }
    }, TOUCH_DELAY_MS);
    touchTimer.unref?.();
  };
  /** A key with its user, as the cache of keys holds it (with its last use still waiting to be written). */
  const loadKey = (keyHash: string) =>
    read(() => {
      const keyRow = statements.getApiKeyByHash.get(keyHash);
      const userRow = keyRow && statements.getUser.get(keyRow.user_id);
      if (!keyRow || !userRow) return null;
      const apiKey = sqliteRows.apiKeyFromRow(keyRow);
      apiKey.lastUsedAt = pendingTouches.get(apiKey.id) ?? apiKey.lastUsedAt;
      return { apiKey, user: userFromRow(userRow) };
    });
  /** Which key hash each key id has, for the keys the cache has loaded (a touch updates the cached key in place). */
  const keyHashes = new Map<string, string>();
  const operator = createSqliteOperatorStorage(database, writeKeepingCache);
  const agents = createSqliteAgentStorage(database, writeKeepingCache);
  const feedback = createSqliteFeedbackStorage(database, statements, writeKeepingCache);

  return {
    requestStarted: cache.requestStarted,
    async upsertPlan(plan) {
      write(() => statements.upsertPlan.run({ name: plan.name, monthly_messages: plan.monthlyMessages }));
      return { ...plan };
    },
    async getPlan(name) {
      const row = statements.getPlan.get(name);
      return row ? planFromRow(row) : null;
    },
    async ensurePlan(plan) {
      return write(() => {
        statements.insertPlanIfMissing.run({ name: plan.name, monthly_messages: plan.monthlyMessages });
        return planFromRow(statements.getPlan.get(plan.name)!);
      });
    },

    async createUser(user) {
      const inserted = write(() =>
        statements.insertUser.run({
          id: user.id,
          email: user.email,
          email_key: user.email.toLowerCase(),
          plan_name: user.planName,
          monthly_messages_override: user.monthlyMessagesOverride,
          created_at: user.createdAt,
        }),
      );
      if (inserted.changes === 0) throw conflict(`A user with email ${user.email} already exists.`);
      return { ...user };
    },
    async getUser(id) {
      const row = statements.getUser.get(id);
      return row ? userFromRow(row) : null;
    },

    async listUsers() {
      return statements.listUsers.all().map(userFromRow);
    },

    async createApiKey(key) {
      write(() =>
        statements.insertApiKey.run(sqliteRows.apiKeyToRow(key)),
      );
      return { ...key };
    },
    async findApiKeyByHash(keyHash) {
      const found = keysByHash.get(keyHash, () => {
        const loaded = loadKey(keyHash);
        if (loaded) keyHashes.set(loaded.apiKey.id, keyHash);
        return loaded;
      });
      return found && { apiKey: { ...found.apiKey }, user: { ...found.user } };
    },
    async revokeApiKey(id, at) {
      writeTouches();
      const row = write(() => statements.revokeApiKey.get(at, id));
      return row ? sqliteRows.apiKeyFromRow(row) : null;
    },
    async getApiKey(id) {
      writeTouches();
      const row = statements.getApiKey.get(id);
      return row ? sqliteRows.apiKeyFromRow(row) : null;
    },
    async listApiKeys(userId) {
      writeTouches();
      return statements.listApiKeys.all(userId).map(sqliteRows.apiKeyFromRow);
    },
    async touchApiKey(id, at) {
      // Written with the other touches of the next second (see pendingTouches); the cached key
      // is updated in place, so the cache stays whole and the next lookup sees the new last use.
      pendingTouches.set(id, at);
      scheduleTouches();
      const keyHash = keyHashes.get(id);
      const cached = keyHash === undefined ? null : keysByHash.get(keyHash, () => null);
      if (cached && cached.apiKey.id === id) cached.apiKey.lastUsedAt = at;
    },

    async createChatbot(draft, baseSlug) {
      return write(() => {
        const chatbot: Chatbot = {
          ...draft,
          slug: firstFreeSlug(statements, draft.ownerId, baseSlug),
          widget: widgetSettingsFrom(draft.widget),
          widgetSecretNonce: draft.widgetSecretNonce ?? null,
        };
        statements.insertChatbot.run(sqliteRows.chatbotToRow(chatbot));
        return chatbot;
      });
    },
    async getChatbot(id) {
      const chatbot = chatbotsById.get(id, () => {
        const row = statements.getChatbot.get(id);
        return row ? sqliteRows.chatbotFromRow(row) : null;
      });
      return chatbot && copyChatbot(chatbot);
    },
    async listChatbots(ownerId) {
      const chatbots = chatbotsByOwner.get(ownerId, () => statements.listChatbots.all(ownerId).map(sqliteRows.chatbotFromRow));
      return chatbots!.map(copyChatbot);
    },
    async updateChatbot(id, changes) {
      return write(() => {
        const row = statements.getChatbot.get(id);
        if (!row) return null;
        // Only the changeable fields, so a stray `id` or `slug` in `changes` cannot retarget the UPDATE.
        const allowed = CHANGEABLE_FIELDS.filter((field) => changes[field] !== undefined).map((field) => [field, changes[field]]);
        const chatbot: Chatbot = { ...sqliteRows.chatbotFromRow(row), ...Object.fromEntries(allowed) };
        try {
          statements.updateChatbot.run(sqliteRows.chatbotToRow(chatbot));
        } catch (error) {
          // Only restoring a deleted chatbot whose slug was reused since can clash.
          if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_UNIQUE") {
            throw conflict(`Another chatbot of this owner already uses the slug ${chatbot.slug}.`);
          }
          throw error;
        }
        return chatbot;
      });
    },

    async getMonthlyUsage(userId, month) {
      return statements.getMonthlyUsage.get(userId, month)?.used ?? 0;
    },
    async readChatState(input) {
      return readChatStateInParts(this, input);
    },
    async readKeyedChatState(input) {
      return readKeyedChatStateInParts(this, input);
    },

    async acceptUserMessage(input) {
      // Named, as the other write below, so that a profile tells the two apart (scripts/cpuprofile-steps.mjs).
      return chatWrites.run(function acceptUserMessageStep() {
        const reserved = statements.reserveMonthlyQuota.get({ user_id: input.userId, month: input.month, limit: input.monthlyLimit });
        if (!reserved) {
          // The failed UPSERT wrote nothing, so the refusal leaves no trace.
          return { accepted: false as const, used: statements.getMonthlyUsage.get(input.userId, input.month)?.used ?? 0 };
        }
        const found = statements.findConversation.get(input.chatbotId, input.sessionId);
        const existing = found
          ? sqliteRows.conversationFromRow(found)
          : insertConversation(statements, newConversation({ id: input.newConversationId, chatbotId: input.chatbotId, sessionId: input.sessionId, humanTakeover: false, at: input.at }));
        // Read before the insert, so the history is exactly the messages before this one.
        const history = statements.recentMessages.all(existing.id, input.historyLimit).reverse().map(sqliteRows.messageFromRow);
        const conversation = sqliteRows.conversationFromRow(statements.countMessage.get({ id: existing.id, at: input.at, needs_attention: null })!);
        const message = insertMessage(statements, newUserMessage({ id: input.messageId, conversationId: conversation.id, content: input.content, at: input.at }));
        // Runs inside the transaction: if the builder throws, the reservation, the conversation
        // and the message are rolled back with it.
        const events = input.events({ conversation: { ...conversation }, conversationCreated: !found, message: { ...message } });
        insertOutboxEvents(statements, events);
        return { accepted: true as const, conversation, conversationCreated: !found, message, history, events };
      });
    },
    async appendAssistantMessage(input) {
      const { id, conversationId, content, author, at } = input;
      return chatWrites.run(function appendAssistantMessageStep() {
        const agentName = author === "agent" ? (input.agentName ?? null) : null;
        const message = insertMessage(statements, { id, conversationId, role: "assistant", author, content, agentName, createdAt: at, sources: structuredClone(input.sources ?? []), feedback: null });
        const counted = statements.countMessage.get({ id: conversationId, at, needs_attention: toFlag(input.needsAttention) });
        if (!counted) throw new Error(`No conversation ${conversationId}.`);
        // Built inside the transaction: a throwing builder rolls the message back with it.
        const events = input.events(sqliteRows.conversationFromRow(counted), { ...message });
        insertOutboxEvents(statements, events);
        return { message, events };
      });
    },
    async markNeedsAttention(conversationId, at) {
      writeKeepingCache(() => statements.markNeedsAttention.run(at, conversationId));
    },
    // In slices with a turn of the event loop between them: one statement over 100,000
    // conversations held the loop for 0.1–0.3 s (`npm run bench:unanswered`).
    async markUnansweredConversations(input) {
      const last = statements.lastConversationRowid.get()?.last ?? 0;
      let marked = 0;
      for (let from = 0; from < last; from += SWEEP_SLICE) {
        marked += writeKeepingCache(() => statements.markUnansweredConversations.run({ ...input, from, to: from + SWEEP_SLICE }).changes);
        await new Promise((resolve) => setImmediate(resolve));
      }
      return marked;
    },

    async findConversation(chatbotId, sessionId) {
      const row = statements.findConversation.get(chatbotId, sessionId);
      return row ? sqliteRows.conversationFromRow(row) : null;
    },
    async setHumanTakeover(input) {
      return writeKeepingCache(() => {
        const found = statements.findConversation.get(input.chatbotId, input.sessionId);
        const changed = (found?.human_takeover === 1) !== input.humanTakeover;
        let conversation: Conversation;
        if (!found) {
          conversation = insertConversation(statements, newConversation({ id: input.newConversationId, chatbotId: input.chatbotId, sessionId: input.sessionId, humanTakeover: input.humanTakeover, at: input.at }));
        } else if (changed) {
          conversation = sqliteRows.conversationFromRow(statements.setHumanTakeover.get(toFlag(input.humanTakeover), input.at, found.id)!);
        } else {
          conversation = sqliteRows.conversationFromRow(found);
        }
        const events = input.events({ conversation: { ...conversation }, created: !found, changed });
        insertOutboxEvents(statements, events);
        if (changed) agents.recordTakeover(conversation.id, input.humanTakeover, input.by ?? null, input.at);
        return { conversation, created: !found, changed, events };
      });
    },
    async listMessages(conversationId) {
      return statements.listMessages.all(conversationId).map(sqliteRows.messageFromRow);
    },

    async listOutboxEvents({ limit }) {
      return statements.listOutboxEvents.all(limit).map(outboxEventFromRow);
    },

    ...operator,
    ...agents.storage,
    ...feedback,
    ...webhooks,

    async close() {
      chatWrites.flush();
      writeTouches();
      cache.release();
      if (ownsDatabase && database.open) database.close();
    },
  };
}
