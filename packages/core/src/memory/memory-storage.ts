import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation, Message } from "../domain/conversation.js";
import type { OutboxEvent } from "../domain/events.js";
import type { ApiKey, Plan, User } from "../domain/user.js";
import { conflict } from "../errors.js";
import type { AcceptUserMessage, AcceptUserMessageResult, SetHumanTakeover, Storage } from "../ports/storage.js";
import { createMemoryWebhookStore } from "./memory-webhook-store.js";

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

  const copy = <T>(value: T): T => structuredClone(value);
  const conversationKey = (chatbotId: string, sessionId: string) => `${chatbotId}\u0000${sessionId}`;
  const conversationsByKey = new Map<string, Conversation>();
  const usageKey = (userId: string, month: string) => `${userId}\u0000${month}`;

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

    async createChatbot(draft, baseSlug) {
      const taken = liveSlugs(draft.ownerId);
      let slug = baseSlug;
      for (let suffix = 2; taken.has(slug); suffix += 1) slug = `${baseSlug}-${suffix}`;
      const chatbot: Chatbot = { ...copy(draft), slug };
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
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
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

    async acceptUserMessage(input: AcceptUserMessage): Promise<AcceptUserMessageResult> {
      const counter = usageKey(input.userId, input.month);
      const used = usage.get(counter) ?? 0;
      if (used >= input.monthlyLimit) return { accepted: false, used };

      const existing = conversationsByKey.get(conversationKey(input.chatbotId, input.sessionId));
      const conversation: Conversation = existing ?? {
        id: input.newConversationId,
        chatbotId: input.chatbotId,
        sessionId: input.sessionId,
        humanTakeover: false,
        createdAt: input.at,
      };
      const message: Message = {
        id: input.messageId,
        conversationId: conversation.id,
        role: "user",
        author: "end_user",
        content: input.content,
        createdAt: input.at,
      };
      const earlier = messages.filter((stored) => stored.conversationId === conversation.id);
      const history = earlier.slice(Math.max(0, earlier.length - input.historyLimit));
      // Build the events before writing anything, so a throwing builder leaves no trace.
      const events = input.events({ conversation: copy(conversation), conversationCreated: !existing, message: copy(message) });

      if (!existing) {
        conversations.set(conversation.id, conversation);
        conversationsByKey.set(conversationKey(conversation.chatbotId, conversation.sessionId), conversation);
      }
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
        used: used + 1,
      };
    },
    async appendAssistantMessage(input) {
      if (!conversations.has(input.conversationId)) throw new Error(`No conversation ${input.conversationId}.`);
      const message: Message = {
        id: input.id,
        conversationId: input.conversationId,
        role: "assistant",
        author: input.author,
        content: input.content,
        createdAt: input.at,
      };
      messages.push(message);
      return copy(message);
    },

    async findConversation(chatbotId, sessionId) {
      const conversation = conversationsByKey.get(conversationKey(chatbotId, sessionId));
      return conversation ? copy(conversation) : null;
    },
    async setHumanTakeover(input: SetHumanTakeover) {
      const key = conversationKey(input.chatbotId, input.sessionId);
      const existing = conversationsByKey.get(key);
      if (existing) {
        existing.humanTakeover = input.humanTakeover;
        return { conversation: copy(existing), created: false, events: [] };
      }
      const conversation: Conversation = {
        id: input.newConversationId,
        chatbotId: input.chatbotId,
        sessionId: input.sessionId,
        humanTakeover: input.humanTakeover,
        createdAt: input.at,
      };
      const events = input.events(copy(conversation));
      conversations.set(conversation.id, conversation);
      conversationsByKey.set(key, conversation);
      outbox.push(...events.map(copy));
      return { conversation: copy(conversation), created: true, events: events.map(copy) };
    },
    async listMessages(conversationId) {
      return messages.filter((message) => message.conversationId === conversationId).map(copy);
    },

    async listOutboxEvents({ limit }) {
      return outbox.slice(0, limit).map(copy);
    },

    ...webhooks,

    async close() {},
  };
  return storage;
}
