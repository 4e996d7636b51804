import type { Message, MessageSource } from "../domain/conversation.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import type { ChatReply } from "../ports/chat-model.js";
import { acceptMessage, modelFailed, modelFor, preparePrompt, storeReply, type AcceptedMessage } from "./chat-steps.js";
import { acceptKeyedMessage, type KeyedChatProgress } from "./keyed-chat.js";

/** The outcome of a chat call. */
export interface ChatResult {
  /** The reply; empty while a human agent has taken over. */
  response: string;
  /** True when a human agent has the conversation: the message was stored, no reply generated. */
  humanTakeover: boolean;
  /** The stored user message. */
  message: Message;
  /** The stored reply, with its sources; null while a human agent has taken over. */
  reply: Message | null;
  /** The documents the reply's context came from, in the prompt's order (the reply's `sources`). */
  sources: MessageSource[];
}

/**
 * One chat call, the seven steps of the spec in order (see chat-steps.ts). The caller is already
 * authenticated and admitted by the per-key rate limit (see `admitRequest`).
 */
export async function chat(dependencies: Dependencies, caller: Pick<Caller, "user">, chatbotId: string, body: unknown): Promise<ChatResult> {
  return answer(dependencies, await acceptMessage(dependencies, caller, chatbotId, body));
}

/**
 * The same chat sent with an API key: the key authenticated and limited with the chat's own
 * reads and limit (see `acceptKeyedMessage`), the body read by `readBody`. `progress` tells
 * the caller what passed, for the answer's headers, refused or not.
 */
export async function chatWithKey(
  dependencies: Dependencies,
  apiKey: string | undefined | null,
  chatbotId: string,
  readBody: () => Promise<unknown>,
  progress: KeyedChatProgress,
): Promise<ChatResult> {
  return answer(dependencies, await acceptKeyedMessage(dependencies, apiKey, chatbotId, readBody, progress));
}

/** Steps 5–7 of an accepted message. */
async function answer(dependencies: Dependencies, accepted: AcceptedMessage): Promise<ChatResult> {
  // 3. A human agent has the conversation: the message is stored, no reply is generated.
  if (accepted.conversation.humanTakeover) return { response: "", humanTakeover: true, message: accepted.message, reply: null, sources: [] };

  const { prompt, sources } = await preparePrompt(dependencies, accepted);

  // 7. The chatbot's model, then the reply stored with its `message.sent` event and returned.
  let reply: ChatReply;
  try {
    reply = await modelFor(dependencies, accepted.chatbot).complete({ model: accepted.chatbot.model, ...prompt, maxTokens: dependencies.settings.maxReplyTokens });
  } catch (error) {
    return modelFailed(dependencies, accepted, error);
  }
  const stored = await storeReply(dependencies, accepted, reply.text, sources);
  return { response: stored.content, humanTakeover: false, message: accepted.message, reply: stored, sources: stored.sources };
}
