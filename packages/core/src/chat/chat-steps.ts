// The seven steps of the spec's chat, as the two ways of running it share them: `chat()` (one
// answer) and `chatStream()` (the answer as the model writes it). Only the call to the model
// differs between them; every other step is the same function.
import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation, Message, MessageSource } from "../domain/conversation.js";
import type { Caller, Plan, User } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound, chatbotPaused, conversationRateLimited, isParleyError, providerFailed, quotaExceeded } from "../errors.js";
import { conversationStarted, messageReceived, messageSent, publish } from "../events/outbox-events.js";
import { ownedChatbot } from "../chatbots/owned-chatbot.js";
import { isUuid } from "../support/ids.js";
import type { ChatModel } from "../ports/chat-model.js";
import type { RateLimitDecision, RateLimitHit } from "../ports/rate-limiter.js";
import { formatTimestamp, microsToMillis, monthOf, startOfNextMonth } from "../support/time.js";
import { parseChatInput } from "./chat-input.js";
import { buildPrompt, type Prompt } from "./prompt-builder.js";
import { replySources } from "./reply-sources.js";
import { retrieveContext } from "./retrieve-context.js";

/** A user message stored by steps 1–4, with what the later steps need. */
export interface AcceptedMessage {
  chatbot: Chatbot;
  conversation: Conversation;
  /** The stored user message. */
  message: Message;
  /** The stored messages before it, oldest first (the history of step 6). */
  history: Message[];
}

/**
 * Steps 1–4: checks the body and the chatbot, enforces the monthly quota and the conversation's
 * rate, then in one atomic step reserves the quota, finds or creates the conversation, stores the
 * user message and writes its events. The caller is already authenticated and admitted by the
 * per-key rate limit (see `admitRequest`).
 */
export async function acceptMessage(dependencies: Dependencies, caller: Pick<Caller, "user">, chatbotId: string, body: unknown): Promise<AcceptedMessage> {
  const { storage, rateLimiter, clock } = dependencies;
  const { message, sessionId } = parseChatInput(body, caller.user.id);
  if (!isUuid(chatbotId)) throw chatbotNotFound();

  // The chatbot, the plan, the month's usage and the conversation, read together.
  const now = clock.now();
  const month = monthOf(now);
  const state = await storage.readChatState({ chatbotId: chatbotId.toLowerCase(), sessionId, userId: caller.user.id, planName: caller.user.planName, month });
  const chatbot = ownedChatbot(state.chatbot, caller.user);
  if (!chatbot.isActive) throw chatbotPaused();

  // 1. Quota, then the conversation's rate. The quota is read here so that an exhausted
  //    quota is reported before the conversation limit, and reserved atomically in step 2–4.
  const quota = monthlyQuota(dependencies, caller.user, state.plan, now);
  if (state.used >= quota.limit) throw quota.exceeded();
  const conversation = conversationLimit(dependencies, chatbot.id, sessionId);
  refuseConversationRate(conversation, await rateLimiter.hit(conversation.key, conversation.limit, conversation.windowMs));
  return storeUserMessage(dependencies, { user: caller.user, chatbot, sessionId, message, quota, conversation: state.conversation, at: now, month });
}

/** The conversation's rate limit (docs/design.md §4) as a hit of the rate limiter. */
export function conversationLimit(dependencies: Pick<Dependencies, "settings">, chatbotId: string, sessionId: string): RateLimitHit {
  return { key: `conversation:${chatbotId}:${sessionId}`, limit: dependencies.settings.conversationMessagesPerMinute, windowMs: 60_000 };
}

/** Throws `conversation_rate_limited` when the conversation's limit refused the message. */
export function refuseConversationRate(hit: RateLimitHit, decision: RateLimitDecision): void {
  if (!decision.allowed) throw conversationRateLimited(hit.limit, Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
}

/** What steps 2–4 store: a message every check has let through, with what was read for it. */
export interface CheckedMessage {
  user: User;
  chatbot: Chatbot;
  sessionId: string;
  message: string;
  quota: MonthlyQuota;
  /** The conversation of (chatbot, session) as read; null when there was none. */
  conversation: Conversation | null;
  at: number;
  month: string;
}

/**
 * Steps 2–4, one atomic step: reserve one message of the quota, find or create the conversation
 * of (chatbot, session), store the user message and write its events to the outbox.
 */
export async function storeUserMessage(dependencies: Dependencies, checked: CheckedMessage): Promise<AcceptedMessage> {
  const { storage, ids, settings } = dependencies;
  const { user, chatbot, quota } = checked;
  const [startedId, receivedId] = [ids.uuid(), ids.uuid()];
  const accepted = await storage.acceptUserMessage({
    userId: user.id,
    month: checked.month,
    monthlyLimit: quota.limit,
    chatbotId: chatbot.id,
    sessionId: checked.sessionId,
    content: checked.message,
    newConversationId: ids.uuid(),
    conversation: checked.conversation,
    messageId: ids.uuid(),
    eventIds: [startedId, receivedId],
    historyLimit: settings.historyTurns,
    at: checked.at,
    events: ({ conversation, conversationCreated, message: stored }) => [
      ...(conversationCreated ? [conversationStarted(startedId, chatbot.ownerId, conversation)] : []),
      messageReceived(receivedId, chatbot.ownerId, conversation, stored),
    ],
  });
  if (!accepted.accepted) throw quota.exceeded(); // concurrent calls took the last messages
  publish(dependencies.events, accepted.events);
  return { chatbot, conversation: accepted.conversation, message: accepted.message, history: accepted.history };
}

/**
 * Steps 5–6: hybrid retrieval (BM25 and vectors fused by Reciprocal Rank Fusion), then the
 * prompt (system prompt, identity rules and context; the last turns; the message), with the
 * documents its context came from.
 */
export async function preparePrompt(dependencies: Dependencies, accepted: AcceptedMessage): Promise<{ prompt: Prompt; sources: MessageSource[] }> {
  const { searchIndex, embedder, settings } = dependencies;
  const { chatbot, message, history } = accepted;
  const context = await retrieveContext({ searchIndex, embedder, chatbotId: chatbot.id, query: message.content }, settings.retrieval);
  const prompt = buildPrompt({ chatbot, identityRules: settings.identityRules(chatbot), context, history, message: message.content });
  return { prompt, sources: await replySources(searchIndex, chatbot.id, context) };
}

/** The model configured for the chatbot's provider; `provider_failed` when there is none. */
export function modelFor(dependencies: Pick<Dependencies, "chatModels">, chatbot: Chatbot): ChatModel {
  const model = dependencies.chatModels[chatbot.provider];
  if (!model) throw providerFailed({ cause: new Error(`No chat model is configured for provider ${chatbot.provider}.`) });
  return model;
}

/**
 * Step 7 when the model failed (provider error, timeout, abort): nothing of the reply is stored,
 * the conversation is marked as needing an agent, and the failure goes on as `provider_failed`.
 */
export async function modelFailed(dependencies: Pick<Dependencies, "storage" | "clock">, accepted: AcceptedMessage, error: unknown): Promise<never> {
  await dependencies.storage.markNeedsAttention(accepted.conversation.id, dependencies.clock.now());
  throw isParleyError(error, "provider_failed") ? error : providerFailed({ cause: error });
}

/**
 * Step 7 when the model answered: a blank reply becomes the fallback message (citing nothing,
 * and the conversation then needs an agent); the reply is stored with its sources and its
 * `message.sent` event in one step.
 */
export async function storeReply(dependencies: Dependencies, accepted: AcceptedMessage, text: string, sources: MessageSource[]): Promise<Message> {
  const { storage, clock, ids } = dependencies;
  const { chatbot } = accepted;
  const fallback = text.trim() === "";
  const sentId = ids.uuid();
  const stored = await storage.appendAssistantMessage({
    id: ids.uuid(),
    conversationId: accepted.conversation.id,
    content: fallback ? chatbot.fallbackMessage : text,
    author: "model",
    sources: fallback ? [] : sources,
    needsAttention: fallback,
    at: clock.now(),
    conversation: accepted.conversation,
    events: (conversation, message) => [messageSent(sentId, chatbot.ownerId, conversation, message)],
  });
  publish(dependencies.events, stored.events);
  return stored.message;
}

/** A user's monthly limit, and the error to throw when it is used up. */
export interface MonthlyQuota {
  limit: number;
  exceeded(): Error;
}

/** The user's monthly limit (the plan as read; the default plan when it is not stored), and the error to throw when it is used up. */
export function monthlyQuota(dependencies: Pick<Dependencies, "settings">, user: User, stored: Plan | null, now: number): MonthlyQuota {
  const plan = stored ?? dependencies.settings.defaultPlan;
  const limit = user.monthlyMessagesOverride ?? plan.monthlyMessages;
  const resetsAt = startOfNextMonth(now);
  const retryAfterSeconds = Math.max(1, Math.ceil(microsToMillis(resetsAt - now) / 1000));
  return {
    limit,
    exceeded: () => quotaExceeded(plan.name, limit, formatTimestamp(resetsAt).slice(0, 10), retryAfterSeconds),
  };
}
