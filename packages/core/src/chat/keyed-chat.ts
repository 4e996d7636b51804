import { admitted, callerOfKey, isWellFormedApiKey, keyLimit, requireChatScope } from "../auth/authenticate.js";
import { ownedChatbot } from "../chatbots/owned-chatbot.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound, chatbotPaused, unauthorized, type RateLimitStatus } from "../errors.js";
import { sha256Hex } from "../support/hash.js";
import { isUuid } from "../support/ids.js";
import { monthOf } from "../support/time.js";
import { parseChatBody } from "./chat-input.js";
import { conversationLimit, monthlyQuota, refuseConversationRate, storeUserMessage, type AcceptedMessage, type CheckedMessage } from "./chat-steps.js";

/** What a chat sent with an API key has passed so far, filled in as it passes: for the answer's headers and log line. */
export interface KeyedChatProgress {
  /** The key's caller, once the key is known (401 passed). */
  caller?: Caller;
  /** The per-key limit after this request, once it let it through (the `RateLimit-*` headers). */
  rateLimit?: RateLimitStatus;
}

/**
 * Steps 1–4 of a chat sent with an API key, in two round trips before the write
 * (docs/scaling.md, "Round trips of a chat"): the key, its user, the chatbot, the plan, the
 * month's usage and the conversation in one read, then both rate limits in one step of the
 * limiter. Refusals come in the order of docs/design.md §4 as the HTTP layer answers any key
 * route: 401, the per-key 429, 403 (an agent key), the body (`readBody`'s refusal, then the
 * spec's checks), 404, paused, the quota, the conversation's 429. Everything between the two
 * limits is decided from the read before the limiter's step, which counts the conversation only
 * when all of it passed; the key is counted whenever it is known, as for any route.
 */
export async function acceptKeyedMessage(
  dependencies: Dependencies,
  apiKey: string | undefined | null,
  chatbotId: string,
  readBody: () => Promise<unknown>,
  progress: KeyedChatProgress,
): Promise<AcceptedMessage> {
  const { storage, clock, rateLimiter } = dependencies;
  // A malformed key never reaches the database, nor is its body read.
  if (!isWellFormedApiKey(apiKey)) throw unauthorized();
  // Read first (the session names the conversation to read), refused in its place below.
  const body: { input?: ReturnType<typeof parseChatBody>; refusal?: unknown } = await readBody().then(
    (value) => {
      try {
        return { input: parseChatBody(value) };
      } catch (error) {
        return { refusal: error };
      }
    },
    (error: unknown) => ({ refusal: error }),
  );
  const id = isUuid(chatbotId) ? chatbotId.toLowerCase() : null;
  const now = clock.now();
  const month = monthOf(now);
  const { key, state } = await storage.readKeyedChatState({ keyHash: sha256Hex(apiKey), chatbotId: id, sessionId: body.input?.sessionId ?? null, month });
  const caller = await callerOfKey(dependencies, key);
  progress.caller = caller;

  let checked: CheckedMessage | undefined;
  let refusal: unknown;
  try {
    requireChatScope(caller);
    if (body.input === undefined) throw body.refusal;
    if (id === null) throw chatbotNotFound();
    const chatbot = ownedChatbot(state.chatbot, caller.user);
    if (!chatbot.isActive) throw chatbotPaused();
    // The quota is read here so that an exhausted quota is reported before the conversation
    // limit, and reserved atomically when the message is stored.
    const quota = monthlyQuota(dependencies, caller.user, state.plan, now);
    if (state.used >= quota.limit) throw quota.exceeded();
    const sessionId = body.input.sessionId ?? `api-${caller.user.id}`;
    checked = { user: caller.user, chatbot, sessionId, message: body.input.message, quota, conversation: state.conversation, at: now, month };
  } catch (error) {
    refusal = error;
  }

  const keyHit = keyLimit(dependencies, caller);
  const conversationHit = checked && conversationLimit(dependencies, checked.chatbot.id, checked.sessionId);
  const [keyDecision, conversationDecision] = await rateLimiter.hitInOrder(conversationHit ? [keyHit, conversationHit] : [keyHit]);
  progress.rateLimit = admitted(keyHit, keyDecision!);
  if (checked === undefined) throw refusal;
  refuseConversationRate(conversationHit!, conversationDecision!);
  return storeUserMessage(dependencies, checked);
}
