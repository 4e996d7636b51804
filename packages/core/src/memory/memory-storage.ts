import { readChatStateInParts, readKeyedChatStateInParts } from "../ports/chat-state.js";
import type { Chatbot } from "../domain/chatbot.js";
import { widgetSettingsFrom } from "../domain/widget.js";
import { newConversation, newUserMessage, type Conversation, type ConversationEvent, type ConversationSummary, type Message } from "../domain/conversation.js";
import type { OutboxEvent } from "../domain/events.js";
import type { ApiKey, Plan, User } from "../domain/user.js";
import { conflict } from "../errors.js";
import type { AcceptUserMessage, AcceptUserMessageResult, SetHumanTakeover, Storage } from "../ports/storage.js";
import type { ConversationFilter } from "../ports/storage-operator.js";
import { createMemoryAgentStore } from "./memory-agent-store.js";
import { createMemoryOperatorStore } from "./memory-operator-store.js";
import { createMemoryWebhookStore } from "./memory-webhook-store.js";

const byNewest = <T extends { id: string }>(at: (item: T) => number) => (a: T, b: T) => at(b) - at(a) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * Storage in process memory, for tests and experiments. Each method does all its work before
 * its first `await` point (there is none), so in one JavaScript thread every call is atomic;
 * a builder that throws is called before anything is written.
 */
export function createMemoryStorage(): Storage {
  const plans = new Map<string, Plan>();
  const users = new Map<string, User>();
  const keys = new Map<string, ApiKey>();
  const chatbots = new Map<string, Chatbot>();
  const conversations = new Map<string, Conversation>();
  const messages: Message[] = [];
  const usage = new Map<string, number>();
  const outbox: OutboxEvent[] = [];
  const webhooks = createMemoryWebhookStore(outbox);
  const operator = createMemoryOperatorStore({ outbox, messages, conversations, chatbots });
  const timelines = new Map<string, ConversationEvent[]>();
  const { unreadOf, ...agents } = createMemoryAgentStore({ messages, conversations, timelines });

  const copy = <T>(value: T): T => structuredClone(value);
  const conversationKey = (chatbotId: string, sessionId: string) => `${chatbotId}\u0000${sessionId}`;
  const conversationsByKey = new Map<string, Conversation>();
  const usageKey = (userId: string, month: string) => `${userId}\u0000${month}`;
  const messagesOf = (conversationId: string) => messages.filter((message) => message.conversationId === conversationId);
  const summary = (conversation: Conversation): ConversationSummary => ({ ...copy(conversation), lastMessage: copy(messagesOf(conversation.id).at(-1) ?? null) });
  const matches = (conversation: Conversation, filter: ConversationFilter) => {
    const chatbot = chatbots.get(conversation.chatbotId)!;
    if (chatbot.ownerId !== filter.ownerId || chatbot.deletedAt !== null) return false;
    if (filter.chatbotId !== undefined && conversation.chatbotId !== filter.chatbotId) return false;
    if (filter.status === "bot" && conversation.humanTakeover) return false;
    if (filter.status === "human" && !conversation.humanTakeover) return false;
    if (filter.status === "attention" && !conversation.needsAttention) return false;
    if (filter.unreadFor !== undefined && unreadOf(filter.unreadFor, conversation.id) === 0) return false;
    const { after } = filter;
    return after === undefined || conversation.updatedAt < after.at || (conversation.updatedAt === after.at && conversation.id > after.id);
  };

  const liveSlugs = (ownerId: string) =>
    new Set([...chatbots.values()].filter((bot) => bot.ownerId === ownerId && bot.deletedAt === null).map((bot) => bot.slug));

  const storage: Storage = {
    async upsertPlan(plan) {
      plans.set(plan.name, copy(plan));
      return copy(plan);
    },
    async getPlan(name) {
      const plan = plans.get(name);
      return plan ? copy(plan) : null;
    },
    async ensurePlan(plan) {
      if (!plans.has(plan.name)) plans.set(plan.name, copy(plan));
      return copy(plans.get(plan.name)!);
    },

    async createUser(user) {
      const email = user.email.toLowerCase();
      if ([...users.values()].some((existing) => existing.email.toLowerCase() === email)) {
        throw conflict(`A user with email ${user.email} already exists.`);
      }
      users.set(user.id, copy(user));
      return copy(user);
    },
    async getUser(id) {
      const user = users.get(id);
      return user ? copy(user) : null;
    },

    async listUsers() {
      return [...users.values()].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map(copy);
    },

    async createApiKey(key) {
      keys.set(key.id, copy(key));
      return copy(key);
    },
    async findApiKeyByHash(keyHash) {
      const apiKey = [...keys.values()].find((key) => key.keyHash === keyHash);
      const user = apiKey && users.get(apiKey.userId);
      return apiKey && user ? { apiKey: copy(apiKey), user: copy(user) } : null;
    },
    async revokeApiKey(id, at) {
      const key = keys.get(id);
      if (!key) return null;
      key.revokedAt ??= at;
      return copy(key);
    },
    async getApiKey(id) {
      const key = keys.get(id);
      return key ? copy(key) : null;
    },
    async listApiKeys(userId) {
      return [...keys.values()].filter((key) => key.userId === userId).sort(byNewest((key) => key.createdAt)).map(copy);
    },
    async touchApiKey(id, at) {
      const key = keys.get(id);
      if (key) key.lastUsedAt = at;
    },

    async createChatbot(draft, baseSlug) {
      const taken = liveSlugs(draft.ownerId);
      let slug = baseSlug;
      for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${baseSlug}-${suffix}`;
      const chatbot: Chatbot = { ...copy(draft), slug, widget: widgetSettingsFrom(draft.widget), widgetSecretNonce: draft.widgetSecretNonce ?? null };
      chatbots.set(chatbot.id, chatbot);
      return copy(chatbot);
    },
    async getChatbot(id) {
      const chatbot = chatbots.get(id);
      return chatbot ? copy(chatbot) : null;
    },
    async listChatbots(ownerId) {
      return [...chatbots.values()]
        .filter((bot) => bot.ownerId === ownerId && bot.deletedAt === null)
        .sort(byNewest((bot) => bot.createdAt))
        .map(copy);
    },
    async updateChatbot(id, changes) {
      const chatbot = chatbots.get(id);
      if (!chatbot) return null;
      Object.assign(chatbot, copy(changes));
      return copy(chatbot);
    },

    async getMonthlyUsage(userId, month) {
      return usage.get(usageKey(userId, month)) ?? 0;
    },
    async readChatState(input) {
      return readChatStateInParts(this, input);
    },
    async readKeyedChatState(input) {
      return readKeyedChatStateInParts(this, input);
    },

    async acceptUserMessage(input: AcceptUserMessage): Promise<AcceptUserMessageResult> {
      const counter = usageKey(input.userId, input.month);
      const used = usage.get(counter) ?? 0;
      if (used >= input.monthlyLimit) return { accepted: false, used };

      const existing = conversationsByKey.get(conversationKey(input.chatbotId, input.sessionId));
      const conversation: Conversation = {
        ...(existing ?? newConversation({ id: input.newConversationId, chatbotId: input.chatbotId, sessionId: input.sessionId, humanTakeover: false, at: input.at })),
        updatedAt: input.at,
      };
      conversation.messageCount += 1;
      const message = newUserMessage({ id: input.messageId, conversationId: conversation.id, content: input.content, at: input.at });
      const earlier = messagesOf(conversation.id);
      const history = earlier.slice(Math.max(0, earlier.length - input.historyLimit));
      // Build the events before writing anything, so a throwing builder leaves no trace.
      const events = input.events({ conversation: copy(conversation), conversationCreated: !existing, message: copy(message) });

      conversations.set(conversation.id, conversation);
      conversationsByKey.set(conversationKey(conversation.chatbotId, conversation.sessionId), conversation);
      messages.push(message);
      usage.set(counter, used + 1);
      outbox.push(...events.map(copy));
      return {
        accepted: true,
        conversation: copy(conversation),
        conversationCreated: !existing,
        message: copy(message),
        history: history.map(copy),
        events: events.map(copy),
      };
    },
    async appendAssistantMessage(input) {
      const stored = conversations.get(input.conversationId);
      if (!stored) throw new Error(`No conversation ${input.conversationId}.`);
      const message: Message = {
        id: input.id,
        conversationId: input.conversationId,
        role: "assistant",
        author: input.author,
        content: input.content,
        agentName: input.author === "agent" ? (input.agentName ?? null) : null,
        createdAt: input.at,
        sources: (input.sources ?? []).map((source) => ({ ...source })),
        feedback: null,
      };
      const conversation: Conversation = {
        ...stored,
        messageCount: stored.messageCount + 1,
        updatedAt: input.at,
        needsAttention: input.needsAttention,
        attentionReason: input.needsAttention ? "fallback" : null,
      };
      const events = input.events(copy(conversation), copy(message));
      Object.assign(stored, conversation);
      messages.push(message);
      outbox.push(...events.map(copy));
      return { message: copy(message), events: events.map(copy) };
    },
    async rateMessage(input) {
      const conversation = conversationsByKey.get(conversationKey(input.chatbotId, input.sessionId));
      const message = conversation && messages.find((each) => each.id === input.messageId && each.conversationId === conversation.id);
      if (!conversation || !message || message.role !== "assistant" || message.author !== "model") return null;
      const rated: Message = { ...copy(message), feedback: { rating: input.rating, comment: input.comment, createdAt: input.at } };
      const events = input.events({ conversation: copy(conversation), message: copy(rated) });
      message.feedback = copy(rated.feedback);
      outbox.push(...events.map(copy));
      return { message: rated, events: events.map(copy) };
    },
    async countFeedback(userId, { from, to }) {
      const counts = new Map<string, { up: number; down: number }>();
      for (const message of messages) {
        const feedback = message.feedback;
        if (!feedback || feedback.createdAt < from || feedback.createdAt >= to) continue;
        const chatbotId = conversations.get(message.conversationId)!.chatbotId;
        if (chatbots.get(chatbotId)?.ownerId !== userId) continue;
        const count = counts.get(chatbotId) ?? { up: 0, down: 0 };
        count[feedback.rating] += 1;
        counts.set(chatbotId, count);
      }
      return [...counts].map(([chatbotId, count]) => ({ chatbotId, ...count })).sort((a, b) => (a.chatbotId < b.chatbotId ? -1 : 1));
    },
    async markNeedsAttention(conversationId, at) {
      const conversation = conversations.get(conversationId);
      if (conversation) Object.assign(conversation, { needsAttention: true, attentionReason: "provider_failed", updatedAt: Math.max(conversation.updatedAt, at) });
    },
    async markUnansweredConversations({ before, at }) {
      let marked = 0;
      for (const conversation of conversations.values()) {
        if (conversation.needsAttention || conversation.humanTakeover || conversation.updatedAt >= before) continue;
        const latest = messagesOf(conversation.id).at(-1);
        if (latest?.role !== "user" || latest.createdAt >= before) continue;
        if ((timelines.get(conversation.id) ?? []).some((event) => event.at >= latest.createdAt)) continue;
        Object.assign(conversation, { needsAttention: true, attentionReason: "provider_failed", updatedAt: Math.max(conversation.updatedAt, at) });
        marked += 1;
      }
      return marked;
    },

    async findConversation(chatbotId, sessionId) {
      const conversation = conversationsByKey.get(conversationKey(chatbotId, sessionId));
      return conversation ? copy(conversation) : null;
    },
    async getConversation(id) {
      const conversation = conversations.get(id);
      return conversation ? summary(conversation) : null;
    },
    async listConversations(filter) {
      return [...conversations.values()]
        .filter((conversation) => matches(conversation, filter))
        .sort(byNewest((conversation) => conversation.updatedAt))
        .slice(0, filter.limit)
        .map(summary);
    },
    async setHumanTakeover(input: SetHumanTakeover) {
      const key = conversationKey(input.chatbotId, input.sessionId);
      const existing = conversationsByKey.get(key);
      const changed = (existing?.humanTakeover ?? false) !== input.humanTakeover;
      const conversation: Conversation = existing
        ? { ...existing, humanTakeover: input.humanTakeover, updatedAt: changed ? input.at : existing.updatedAt }
        : newConversation({ id: input.newConversationId, chatbotId: input.chatbotId, sessionId: input.sessionId, humanTakeover: input.humanTakeover, at: input.at });
      const events = input.events({ conversation: copy(conversation), created: !existing, changed });
      if (existing) Object.assign(existing, conversation);
      else {
        conversations.set(conversation.id, conversation);
        conversationsByKey.set(key, conversation);
      }
      outbox.push(...events.map(copy));
      if (changed) {
        const timeline = timelines.get(conversation.id) ?? [];
        timeline.push({ type: input.humanTakeover ? "takeover_started" : "takeover_ended", by: input.by ?? null, at: input.at });
        timelines.set(conversation.id, timeline);
      }
      return { conversation: copy(conversation), created: !existing, changed, events: events.map(copy) };
    },
    async listMessages(conversationId) {
      return messagesOf(conversationId).map(copy);
    },
    async listMessagesAfter(conversationId, afterMessageId) {
      const all = messagesOf(conversationId);
      const index = all.findIndex((message) => message.id === afterMessageId);
      return index === -1 ? null : all.slice(index + 1).map(copy);
    },

    async listOutboxEvents({ limit }) {
      return outbox.slice(0, limit).map(copy);
    },

    ...operator,
    ...agents,
    ...webhooks,

    async close() {},
  };
  return storage;
}
