import type { Chatbot } from "../domain/chatbot.js";
import type { Caller, User } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotPaused, conversationRateLimited, isParleyError, providerFailed, quotaExceeded } from "../errors.js";
import { conversationStarted, messageReceived, messageSent, publish } from "../events/outbox-events.js";
import { findOwnedChatbot } from "../chatbots/owned-chatbot.js";
import type { ChatReply } from "../ports/chat-model.js";
import { formatTimestamp, microsToMillis, monthOf, startOfNextMonth } from "../support/time.js";
import { parseChatInput } from "./chat-input.js";
import { buildPrompt } from "./prompt-builder.js";
import { retrieveContext } from "./retrieve-context.js";

/** The outcome of a chat call. */
export interface ChatResult {
  /** The reply; empty while a human agent has taken over. */
  response: string;
  /** True when a human agent has the conversation: the message was stored, no reply generated. */
  humanTakeover: boolean;
}

/**
 * One chat call, the seven steps of the spec in order. The caller is already authenticated
 * and admitted by the per-key rate limit (see `admitRequest`).
 */
export async function chat(dependencies: Dependencies, caller: Caller, chatbotId: string, body: unknown): Promise<ChatResult> {
  const { storage, searchIndex, embedder, rateLimiter, clock, ids, settings } = dependencies;
  const { message, sessionId } = parseChatInput(body, caller.user.id);
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  if (!chatbot.isActive) throw chatbotPaused();

  // 1. Quota, then the conversation's rate. The quota is read here so that an exhausted
  //    quota is reported before the conversation limit, and reserved atomically in step 2–4.
  const now = clock.now();
  const quota = await monthlyQuota(dependencies, caller.user, now);
  if ((await storage.getMonthlyUsage(caller.user.id, quota.month)) >= quota.limit) throw quota.exceeded();
  const perMinute = settings.conversationMessagesPerMinute;
  const conversationRate = await rateLimiter.hit(`conversation:${chatbot.id}:${sessionId}`, perMinute, 60_000);
  if (!conversationRate.allowed) throw conversationRateLimited(perMinute, Math.max(1, Math.ceil(conversationRate.retryAfterMs / 1000)));

  // 2–4. One atomic step: reserve one message of the quota, find or create the conversation
  //      of (chatbot, session), store the user message and write its events to the outbox.
  const [startedId, receivedId] = [ids.uuid(), ids.uuid()];
  const accepted = await storage.acceptUserMessage({
    userId: caller.user.id,
    month: quota.month,
    monthlyLimit: quota.limit,
    chatbotId: chatbot.id,
    sessionId,
    content: message,
    newConversationId: ids.uuid(),
    messageId: ids.uuid(),
    eventIds: [startedId, receivedId],
    historyLimit: settings.historyTurns,
    at: now,
    events: ({ conversation, conversationCreated, message: stored }) => [
      ...(conversationCreated ? [conversationStarted(startedId, chatbot.ownerId, conversation)] : []),
      messageReceived(receivedId, chatbot.ownerId, conversation, stored),
    ],
  });
  if (!accepted.accepted) throw quota.exceeded(); // concurrent calls took the last messages
  publish(dependencies.events, accepted.events);

  // 3. A human agent has the conversation: the message is stored, no reply is generated.
  if (accepted.conversation.humanTakeover) return { response: "", humanTakeover: true };

  // 5. Hybrid retrieval: BM25 and vectors fused by Reciprocal Rank Fusion.
  const context = await retrieveContext({ searchIndex, embedder, chatbotId: chatbot.id, query: message }, settings.retrieval);

  // 6. The prompt: system prompt, identity rules and context; then the last turns; then the message.
  const prompt = buildPrompt({ chatbot, identityRules: settings.identityRules(chatbot), context, history: accepted.history, message });

  // 7. The chatbot's model; a blank reply becomes the fallback message, and the conversation
  //    then needs an agent, as it does when the provider fails. Reply stored with its
  //    `message.sent` event in one step, then returned.
  let reply: ChatReply;
  try {
    reply = await callModel(dependencies, chatbot, prompt);
  } catch (error) {
    await storage.markNeedsAttention(accepted.conversation.id, clock.now());
    throw error;
  }
  const fallback = reply.text.trim() === "";
  const response = fallback ? chatbot.fallbackMessage : reply.text;
  const sentId = ids.uuid();
  const stored = await storage.appendAssistantMessage({
    id: ids.uuid(),
    conversationId: accepted.conversation.id,
    content: response,
    author: "model",
    needsAttention: fallback,
    at: clock.now(),
    events: (conversation, message) => [messageSent(sentId, chatbot.ownerId, conversation, message)],
  });
  publish(dependencies.events, stored.events);
  return { response, humanTakeover: false };
}

/** The user's monthly limit for the month of `now`, and the error to throw when it is used up. */
async function monthlyQuota(dependencies: Pick<Dependencies, "storage" | "settings">, user: User, now: number) {
  const plan = (await dependencies.storage.getPlan(user.planName)) ?? dependencies.settings.defaultPlan;
  const limit = user.monthlyMessagesOverride ?? plan.monthlyMessages;
  const resetsAt = startOfNextMonth(now);
  const retryAfterSeconds = Math.max(1, Math.ceil(microsToMillis(resetsAt - now) / 1000));
  return {
    month: monthOf(now),
    limit,
    exceeded: () => quotaExceeded(plan.name, limit, formatTimestamp(resetsAt).slice(0, 10), retryAfterSeconds),
  };
}

async function callModel(dependencies: Pick<Dependencies, "chatModels" | "settings">, chatbot: Chatbot, prompt: ReturnType<typeof buildPrompt>): Promise<ChatReply> {
  const model = dependencies.chatModels[chatbot.provider];
  if (!model) throw providerFailed({ cause: new Error(`No chat model is configured for provider ${chatbot.provider}.`) });
  try {
    return await model.complete({ model: chatbot.model, ...prompt, maxTokens: dependencies.settings.maxReplyTokens });
  } catch (error) {
    throw isParleyError(error, "provider_failed") ? error : providerFailed({ cause: error });
  }
}
