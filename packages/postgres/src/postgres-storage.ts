import { conflict, newUserMessage, widgetSettingsFrom } from "@parley/core";
import type { AcceptUserMessage, Chatbot, ChatbotChanges, Conversation, Message, OutboxEvent, Storage } from "@parley/core";
import type pg from "pg";
import { inTransaction } from "./postgres-transaction.js";
import { API_KEY_COLUMNS, CHATBOT_COLUMNS, MESSAGE_COLUMNS, OUTBOX_COLUMNS, columnValues, outboxEventFromRow, outboxEventToRow, planFromRow, userFromRow, type ApiKeyRow, type ChatbotRow, type ConversationRow, type MessageRow, type OutboxEventRow, type PlanRow, type UserRow } from "@parley/core/storage-rows";
import { postgresRows } from "./postgres-storage-rows.js";
import { STORAGE_SQL as SQL } from "./postgres-storage-statements.js";
import { CHAT_SQL } from "./postgres-chat-statements.js";
import { toText } from "./postgres-text.js";
import { createPostgresOperatorStorage } from "./postgres-operator-storage.js";
import { createPostgresAgentStorage, recordTakeover } from "./postgres-agent-storage.js";
import { createPostgresFeedbackStorage } from "./postgres-feedback-storage.js";
import { createPostgresWebhookStorage } from "./postgres-webhook-storage.js";

/** The fields `updateChatbot` writes: exactly the keys of ChatbotChanges. */
const CHANGEABLE_FIELDS = ["isActive", "deletedAt", "name", "systemPrompt", "fallbackMessage", "model", "provider", "updatedAt", "widget", "widgetSecretNonce"] as const satisfies readonly (keyof ChatbotChanges)[];
// Stops compiling when ChatbotChanges gains a field the list (and the UPDATE statement) lacks.
const _everyChangeableField: [Exclude<keyof ChatbotChanges, (typeof CHANGEABLE_FIELDS)[number]>] extends [never] ? true : false = true;

/** Options of the PostgreSQL storage: a pool on a database migrated by `openPostgres` (storage track). */
export interface PostgresStorageOptions {
  pool: pg.Pool;
  /** Whether `close()` ends the pool (default false: the pool's owner ends it). */
  ownsPool?: boolean;
}

const UNIQUE_VIOLATION = "23505";
type Queryable = pg.Pool | pg.PoolClient;

/** A chatbot's column values, in CHATBOT_COLUMNS order. */
const chatbotValues = (chatbot: Chatbot) => columnValues(postgresRows.chatbotToRow(chatbot), CHATBOT_COLUMNS);

/**
 * The conversation of (chatbot, session), created (with `humanTakeover`) if new, and locked for
 * the caller's transaction either way: its count, activity and flag change one step at a time.
 */
async function findOrCreateConversation(
  client: Queryable,
  input: { id: string; chatbotId: string; sessionId: string; humanTakeover: boolean; at: number },
): Promise<{ conversation: Conversation; created: boolean }> {
  const values = [input.id, input.chatbotId, toText(input.sessionId), input.humanTakeover, input.at];
  const inserted = await client.query<ConversationRow>(SQL.insertConversation, values);
  if (inserted.rows[0]) return { conversation: postgresRows.conversationFromRow(inserted.rows[0]), created: true };
  const found = await client.query<ConversationRow>(SQL.lockConversation, [input.chatbotId, toText(input.sessionId)]);
  return { conversation: postgresRows.conversationFromRow(found.rows[0]!), created: false };
}

async function insertOutboxEvents(client: Queryable, events: readonly OutboxEvent[]): Promise<void> {
  // In order: an event's seq is its place in the outbox.
  for (const event of events) {
    await client.query(SQL.insertOutboxEvent, columnValues(outboxEventToRow(event), OUTBOX_COLUMNS));
  }
}

/** Rolls back a chat's accepting step whose quota reservation was refused. */
class QuotaUsedUp extends Error {}

/** A message's column values, in MESSAGE_COLUMNS order. */
const messageValues = (message: Message) => columnValues(postgresRows.messageToRow(message), MESSAGE_COLUMNS);

/** Outbox events as one array per column, for an INSERT … SELECT FROM unnest. */
const eventColumns = (events: readonly OutboxEvent[]) => [
  events.map((event) => event.id),
  events.map((event) => event.type),
  events.map((event) => event.userId),
  events.map((event) => event.chatbotId),
  events.map((event) => JSON.stringify(event.data)),
  events.map((event) => event.createdAt),
];

/** How many times a guarded one-statement step is tried (each time from the row the last one returned) before the locked transaction. */
const GUARDED_ATTEMPTS = 3;

/** Stripes of a user's month of usage: one user's concurrent chats reserve on different rows. */
const USAGE_STRIPES = 16;
const randomStripe = () => Math.floor(Math.random() * USAGE_STRIPES);
/** Users' months a storage remembers as having their stripes (forgotten all at once beyond it). */
const MONTHS_REMEMBERED = 10_000;

/** Rolls back a chat's accepting step that found its month's usage stripes not all made yet. */
class UsageStripesMissing extends Error {}

/**
 * Shares what is left of the user's month under `limit` out over its stripes, which stay locked
 * for the rest of the transaction: each stripe's share is its count plus an equal part of what is
 * left. Returns a stripe with a share to reserve on, or the month's count when nothing is left.
 * The stripes are locked in one ordered pass by a transaction that holds no other stripe, so two
 * of these never wait on each other in a cycle, and a chat's one-stripe reservation waits for
 * this and then sees the new shares. Throws UsageStripesMissing when the month has fewer than
 * USAGE_STRIPES stripes: they are made outside the transaction (rows inserted here would be held
 * out of order), and the step runs again.
 */
async function shareOutUsage(client: pg.PoolClient, userId: string, month: string, limit: number): Promise<{ stripe: number } | { used: number }> {
  const { rows } = await client.query<{ stripe: number; used: number }>(SQL.lockUsageStripes, [userId, month]);
  if (rows.length < USAGE_STRIPES) throw new UsageStripesMissing();
  const used = rows.reduce((sum, row) => sum + Number(row.used), 0);
  const left = limit - used;
  if (left <= 0) return { used };
  const share = Math.floor(left / rows.length);
  const extra = left % rows.length;
  const allowances = rows.map((row, index) => Number(row.used) + share + (index < extra ? 1 : 0));
  await client.query(SQL.shareUsageStripes, [userId, month, limit, rows.map((row) => row.stripe), allowances]);
  // The first stripe's share grew by at least one.
  return { stripe: rows[0]!.stripe };
}

async function readConversation(pool: pg.Pool, id: string): Promise<Conversation | null> {
  const { rows } = await pool.query<ConversationRow>(SQL.getConversationById, [id]);
  return rows[0] ? postgresRows.conversationFromRow(rows[0]) : null;
}

/** The first of `base`, `base-2`, `base-3`, … that none of the owner's live chatbots uses. */
async function firstFreeSlug(client: Queryable, ownerId: string, base: string): Promise<string> {
  const { rows } = await client.query<{ slug: string }>(SQL.liveSlugsFrom, [ownerId, base]);
  const taken = new Set(rows.map((row) => row.slug));
  let slug = base;
  for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${base}-${suffix}`;
  return slug;
}

/**
 * The Storage port on PostgreSQL (docs/design.md §13). Each method that writes is one database
 * transaction (READ COMMITTED; the quota is one conditional upsert, never read-then-write); a
 * read is one statement. Nothing is cached in the process, so several processes on one database
 * never read another's stale copy.
 */
export function createPostgresStorage(options: PostgresStorageOptions): Storage {
  const { pool } = options;
  const write = <Result>(step: (client: pg.PoolClient) => Promise<Result>) => inTransaction(pool, step);
  /** The users' months (user id, NUL, month) whose usage stripes this process made or found made. */
  const stripesMade = new Set<string>();
  /** A chat's accepting step in a transaction (when the one-statement step could not apply). */
  const acceptInTransaction = (input: AcceptUserMessage) =>
    write(async (client) => {
      const values = [input.newConversationId, input.chatbotId, toText(input.sessionId), input.at];
      const counted = (await client.query<ConversationRow & { created: boolean }>(CHAT_SQL.countInConversation, values)).rows[0]!;
      const conversation = postgresRows.conversationFromRow(counted);
      // Read under the conversation's lock and before the insert: exactly the messages before this one.
      const recent = await client.query<MessageRow>(SQL.recentMessages, [conversation.id, input.historyLimit]);
      const history = recent.rows.reverse().map(postgresRows.messageFromRow);
      const message = newUserMessage({ id: input.messageId, conversationId: conversation.id, content: input.content, at: input.at });
      // Built inside the transaction: if the builder throws, everything above rolls back with it.
      const events = input.events({ conversation: { ...conversation }, conversationCreated: counted.created, message: { ...message } });
      const reserveAndStore = (stripe: number) =>
        client.query<{ used: number }>(CHAT_SQL.reserveAndStore, [input.userId, input.month, input.monthlyLimit, ...messageValues(message), ...eventColumns(events), stripe]);
      // On a stripe of its own when that has a share left (nothing is written otherwise);
      // else on the one the month was shared out again for. A reservation that waited for its
      // stripe keeps it locked even when it then found no share left (PostgreSQL locks the newest
      // version of a row before it checks it again), so it runs in a savepoint: rolled back to,
      // no stripe stays locked before the ordered pass of shareOutUsage.
      await client.query("SAVEPOINT stripe");
      let reserved = await reserveAndStore(randomStripe());
      if (reserved.rows.length === 0) {
        await client.query("ROLLBACK TO SAVEPOINT stripe");
        const shared = await shareOutUsage(client, input.userId, input.month, input.monthlyLimit);
        // The quota is used up: the whole step rolls back, so the refusal leaves no trace.
        if (!("stripe" in shared)) throw new QuotaUsedUp();
        reserved = await reserveAndStore(shared.stripe);
        // Cannot happen while the stripes are locked; refused rather than stored past the limit.
        if (reserved.rows.length === 0) throw new QuotaUsedUp();
      }
      return { accepted: true as const, conversation, conversationCreated: counted.created, message, history, events };
    });
  const webhooks = createPostgresWebhookStorage(pool);
  const operator = createPostgresOperatorStorage(pool);
  const agents = createPostgresAgentStorage(pool);
  const feedback = createPostgresFeedbackStorage(pool, insertOutboxEvents);

  return {
    async upsertPlan(plan) {
      await pool.query(SQL.upsertPlan, [plan.name, plan.monthlyMessages]);
      return { ...plan };
    },
    async getPlan(name) {
      const { rows } = await pool.query<PlanRow>(SQL.getPlan, [name]);
      return rows[0] ? planFromRow(rows[0]) : null;
    },
    async ensurePlan(plan) {
      // One statement each, but the read must see the row the insert kept: one transaction.
      return write(async (client) => {
        await client.query(SQL.insertPlanIfMissing, [plan.name, plan.monthlyMessages]);
        return planFromRow((await client.query<PlanRow>(SQL.getPlan, [plan.name])).rows[0]!);
      });
    },

    async createUser(user) {
      const values = [user.id, user.email, user.planName, user.monthlyMessagesOverride, user.createdAt, user.email.toLowerCase()];
      const inserted = await pool.query(SQL.insertUser, values);
      if (inserted.rowCount === 0) throw conflict(`A user with email ${user.email} already exists.`);
      return { ...user };
    },
    async getUser(id) {
      const { rows } = await pool.query<UserRow>(SQL.getUser, [id]);
      return rows[0] ? userFromRow(rows[0]) : null;
    },

    async listUsers() {
      const { rows } = await pool.query<UserRow>(SQL.listUsers);
      return rows.map(userFromRow);
    },

    async createApiKey(key) {
      await pool.query(SQL.insertApiKey, columnValues(postgresRows.apiKeyToRow(key), API_KEY_COLUMNS));
      return { ...key };
    },
    async getApiKey(id) {
      const { rows } = await pool.query<ApiKeyRow>(SQL.getApiKey, [id]);
      return rows[0] ? postgresRows.apiKeyFromRow(rows[0]) : null;
    },
    async listApiKeys(userId) {
      return (await pool.query<ApiKeyRow>(SQL.listApiKeys, [userId])).rows.map(postgresRows.apiKeyFromRow);
    },
    async touchApiKey(id, at) {
      await pool.query(SQL.touchApiKey, [at, id]);
    },
    async findApiKeyByHash(keyHash) {
      const { rows } = await pool.query<ApiKeyRow & Record<`u_${keyof UserRow}`, never>>(SQL.getApiKeyByHash, [keyHash]);
      const row = rows[0] as (ApiKeyRow & Record<string, unknown>) | undefined;
      if (!row) return null;
      const user = { id: row.u_id, email: row.u_email, plan_name: row.u_plan_name, monthly_messages_override: row.u_monthly_messages_override, created_at: row.u_created_at } as UserRow;
      return { apiKey: postgresRows.apiKeyFromRow(row), user: userFromRow(user) };
    },
    async revokeApiKey(id, at) {
      const { rows } = await pool.query<ApiKeyRow>(SQL.revokeApiKey, [at, id]);
      return rows[0] ? postgresRows.apiKeyFromRow(rows[0]) : null;
    },

    async createChatbot(draft, baseSlug) {
      return write(async (client) => {
        await client.query(SQL.lockOwner, [draft.ownerId]);
        const chatbot: Chatbot = {
          ...draft,
          slug: await firstFreeSlug(client, draft.ownerId, baseSlug),
          widget: widgetSettingsFrom(draft.widget),
          widgetSecretNonce: draft.widgetSecretNonce ?? null,
        };
        await client.query(SQL.insertChatbot, chatbotValues(chatbot));
        return chatbot;
      });
    },
    async getChatbot(id) {
      const { rows } = await pool.query<ChatbotRow>(SQL.getChatbot, [id]);
      return rows[0] ? postgresRows.chatbotFromRow(rows[0]) : null;
    },
    async listChatbots(ownerId) {
      const { rows } = await pool.query<ChatbotRow>(SQL.listChatbots, [ownerId]);
      return rows.map(postgresRows.chatbotFromRow);
    },
    async updateChatbot(id, changes) {
      return write(async (client) => {
        const row = (await client.query<ChatbotRow>(SQL.lockChatbot, [id])).rows[0];
        if (!row) return null;
        // Only the changeable fields, so a stray `id` or `slug` in `changes` cannot retarget the UPDATE.
        const allowed = CHANGEABLE_FIELDS.filter((field) => changes[field] !== undefined).map((field) => [field, changes[field]]);
        const chatbot: Chatbot = { ...postgresRows.chatbotFromRow(row), ...Object.fromEntries(allowed) };
        const [, , name, , provider, model, systemPrompt, fallbackMessage, isActive, , updatedAt, deletedAt, widget, widgetSecretNonce] = chatbotValues(chatbot);
        try {
          await client.query(SQL.updateChatbot, [id, name, provider, model, systemPrompt, fallbackMessage, isActive, updatedAt, deletedAt, widget, widgetSecretNonce]);
        } catch (error) {
          // Only restoring a deleted chatbot whose slug was reused since can clash.
          if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw conflict(`Another chatbot of this owner already uses the slug ${chatbot.slug}.`);
          throw error;
        }
        return chatbot;
      });
    },

    async getMonthlyUsage(userId, month) {
      const { rows } = await pool.query<{ used: number }>(SQL.getMonthlyUsage, [userId, month]);
      return rows[0]?.used ?? 0;
    },

    async readChatState(input) {
      const { rows } = await pool.query<{ chatbot: ChatbotRow | null; plan: PlanRow | null; used: number; conversation: ConversationRow | null }>(CHAT_SQL.readChatState, [
        input.chatbotId, input.planName, input.userId, input.month, toText(input.sessionId),
      ]);
      const row = rows[0]!;
      return {
        chatbot: row.chatbot && postgresRows.chatbotFromRow(row.chatbot),
        plan: row.plan && planFromRow(row.plan),
        used: Number(row.used),
        conversation: row.conversation && postgresRows.conversationFromRow(row.conversation),
      };
    },

    async readKeyedChatState(input) {
      type KeyRow = ApiKeyRow & { u_email: string; u_plan_name: string; u_monthly_messages_override: number | null; u_created_at: number };
      const { rows } = await pool.query<{ key: KeyRow | null; chatbot: ChatbotRow | null; plan: PlanRow | null; used: number; conversation: ConversationRow | null }>(
        CHAT_SQL.readKeyedChatState,
        [input.keyHash, input.chatbotId, input.month, input.sessionId === null ? null : toText(input.sessionId)],
      );
      const row = rows[0]!;
      const found = row.key;
      const user = found && userFromRow({ id: found.user_id, email: found.u_email, plan_name: found.u_plan_name, monthly_messages_override: found.u_monthly_messages_override, created_at: found.u_created_at });
      return {
        key: found && { apiKey: postgresRows.apiKeyFromRow(found), user: user! },
        state: {
          chatbot: row.chatbot && postgresRows.chatbotFromRow(row.chatbot),
          plan: row.plan && planFromRow(row.plan),
          used: Number(row.used),
          conversation: row.conversation && postgresRows.conversationFromRow(row.conversation),
        },
      };
    },

    async acceptUserMessage(input) {
      // One round trip into the conversation the caller read, while it is still the stored one.
      let expected = input.conversation ?? null;
      for (let attempt = 0; attempt < GUARDED_ATTEMPTS && expected !== null; attempt += 1) {
        const message = newUserMessage({ id: input.messageId, conversationId: expected.id, content: input.content, at: input.at });
        const conversation = { ...expected, messageCount: expected.messageCount + 1, updatedAt: input.at };
        // Built before the statement: a throwing builder writes nothing.
        const events = input.events({ conversation: { ...conversation }, conversationCreated: false, message: { ...message } });
        const { rows } = await pool.query<ConversationRow & { applied: boolean; used: number | null; history: MessageRow[] }>(CHAT_SQL.acceptIntoConversation, [
          input.chatbotId, toText(input.sessionId), expected.id, expected.messageCount, expected.humanTakeover, expected.needsAttention, expected.attentionReason,
          input.userId, input.month, input.monthlyLimit, input.historyLimit, ...messageValues(message), ...eventColumns(events),
          randomStripe(),
        ]);
        const row = rows[0];
        // The stripe has no share left (or the quota is used up): nothing was written; the
        // locked transaction below shares the month out again, or refuses.
        if (row?.applied && row.used === null) break;
        if (row?.applied) {
          return { accepted: true as const, conversation, conversationCreated: false, message, history: row.history.map(postgresRows.messageFromRow), events };
        }
        // Changed since it was read (or gone): built again from the row the statement saw.
        expected = row ? postgresRows.conversationFromRow(row) : null;
      }
      // Six round trips: BEGIN, the conversation, the history, a savepoint, quota with message
      // and events, COMMIT; four more when the stripe has no share left and the month is shared
      // out; and once a month and process, the month's stripes made first.
      const usageMonth = `${input.userId}\u0000${input.month}`;
      for (let attempt = 0; ; attempt += 1) {
        if (!stripesMade.has(usageMonth)) {
          // Made in a statement of its own, holding no lock: the transaction that shares the
          // month out then locks all of its stripes in one ordered pass.
          await pool.query(SQL.addUsageStripes, [input.userId, input.month, USAGE_STRIPES]);
          if (stripesMade.size >= MONTHS_REMEMBERED) stripesMade.clear();
          stripesMade.add(usageMonth);
        }
        try {
          return await acceptInTransaction(input);
        } catch (error) {
          // Gone since they were made (a database emptied under a running server): made again.
          if (error instanceof UsageStripesMissing && attempt === 0) {
            stripesMade.delete(usageMonth);
            continue;
          }
          if (!(error instanceof QuotaUsedUp)) throw error;
          const { rows } = await pool.query<{ used: number }>(SQL.getMonthlyUsage, [input.userId, input.month]);
          return { accepted: false as const, used: rows[0]?.used ?? 0 };
        }
      }
    },
    async appendAssistantMessage(input) {
      const { id, conversationId, content, author, at } = input;
      const agentName = author === "agent" ? (input.agentName ?? null) : null;
      const message: Message = { id, conversationId, role: "assistant", author, content, agentName, createdAt: at, sources: structuredClone(input.sources ?? []), feedback: null };
      // One round trip when the caller's conversation is still the stored one (a chat's reply):
      // the statement applies only then, and otherwise returns the row to build the step from.
      let expected = input.conversation?.id === conversationId ? input.conversation : await readConversation(pool, conversationId);
      for (let attempt = 0; attempt < GUARDED_ATTEMPTS && expected !== null; attempt += 1) {
        const after = { ...expected, messageCount: expected.messageCount + 1, updatedAt: at, needsAttention: input.needsAttention, attentionReason: input.needsAttention ? ("fallback" as const) : null };
        // Built before the statement: a throwing builder writes nothing.
        const events = input.events(after, { ...message });
        const { rows } = await pool.query<ConversationRow & { applied: boolean }>(CHAT_SQL.storeReply, [
          ...messageValues(message), input.needsAttention, expected.messageCount, expected.humanTakeover, expected.needsAttention, expected.attentionReason, ...eventColumns(events),
        ]);
        if (rows[0]?.applied) return { message, events };
        expected = rows[0] ? postgresRows.conversationFromRow(rows[0]) : null;
      }
      if (expected === null) throw new Error(`No conversation ${conversationId}.`);
      // The conversation kept changing under the guarded statement: the locked transaction.
      return write(async (client) => {
        const { rows } = await client.query<ConversationRow>(CHAT_SQL.insertAndCount, [...messageValues(message), input.needsAttention]);
        if (!rows[0]) throw new Error(`No conversation ${conversationId}.`);
        // Built inside the transaction: a throwing builder rolls the message back with it.
        const events = input.events(postgresRows.conversationFromRow(rows[0]), { ...message });
        if (events.length > 0) await client.query(CHAT_SQL.insertEvents, eventColumns(events));
        return { message, events };
      });
    },
    async markNeedsAttention(conversationId, at) {
      await pool.query(SQL.markNeedsAttention, [at, conversationId]);
    },
    async markUnansweredConversations({ before, at }) {
      return (await pool.query(SQL.markUnansweredConversations, [before, at])).rowCount ?? 0;
    },

    async findConversation(chatbotId, sessionId) {
      const { rows } = await pool.query<ConversationRow>(SQL.findConversation, [chatbotId, toText(sessionId)]);
      return rows[0] ? postgresRows.conversationFromRow(rows[0]) : null;
    },
    async setHumanTakeover(input) {
      return write(async (client) => {
        const found = await findOrCreateConversation(client, {
          id: input.newConversationId,
          chatbotId: input.chatbotId,
          sessionId: input.sessionId,
          humanTakeover: input.humanTakeover,
          at: input.at,
        });
        const { created } = found;
        // A new conversation taken over counts as a change; one created without takeover does not.
        const changed = created ? input.humanTakeover : found.conversation.humanTakeover !== input.humanTakeover;
        let { conversation } = found;
        if (!created && changed) {
          const { rows } = await client.query<ConversationRow>(SQL.setHumanTakeover, [input.humanTakeover, input.at, conversation.id]);
          conversation = postgresRows.conversationFromRow(rows[0]!);
        }
        const events = input.events({ conversation: { ...conversation }, created, changed });
        await insertOutboxEvents(client, events);
        if (changed) await recordTakeover(client, conversation.id, input.humanTakeover, input.by ?? null, input.at);
        return { conversation, created, changed, events };
      });
    },
    async listMessages(conversationId) {
      const { rows } = await pool.query<MessageRow>(SQL.listMessages, [conversationId]);
      return rows.map(postgresRows.messageFromRow);
    },

    async listOutboxEvents({ limit }) {
      const { rows } = await pool.query<OutboxEventRow>(SQL.listOutboxEvents, [limit]);
      return rows.map(outboxEventFromRow);
    },

    ...operator,
    ...agents,
    ...feedback,
    ...webhooks,

    async close() {
      if (options.ownsPool) await pool.end();
    },
  };
}
