import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation } from "../domain/conversation.js";
import type { Plan } from "../domain/user.js";

/** What `Storage.readChatState` reads: everything a chat checks before it accepts a message. */
export interface ReadChatState {
  chatbotId: string;
  sessionId: string;
  /** The user the chat runs as, whose plan and month's usage are read. */
  userId: string;
  planName: string;
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
}

/** What a chat reads before it accepts a message, read together. */
export interface ChatState {
  /** The chatbot with that id (deleted ones too); null when there is none. */
  chatbot: Chatbot | null;
  /** The user's plan; null when it is not stored. */
  plan: Plan | null;
  /** The user's messages counted in the month. */
  used: number;
  /** The conversation of (chatbot, session); null while there is none. */
  conversation: Conversation | null;
}

/** The Storage port's single reads `readChatStateInParts` composes. */
interface SingleReads {
  getChatbot(id: string): Promise<Chatbot | null>;
  getPlan(name: string): Promise<Plan | null>;
  getMonthlyUsage(userId: string, month: string): Promise<number>;
  findConversation(chatbotId: string, sessionId: string): Promise<Conversation | null>;
}

/**
 * `readChatState` from the port's single reads, for adapters where a read costs no round trip
 * (in memory, SQLite). Not one snapshot, which a chat does not need: each value is checked
 * again where it matters (the quota and the conversation in `acceptUserMessage`).
 */
export async function readChatStateInParts(storage: SingleReads, input: ReadChatState): Promise<ChatState> {
  const [chatbot, plan, used, conversation] = await Promise.all([
    storage.getChatbot(input.chatbotId),
    storage.getPlan(input.planName),
    storage.getMonthlyUsage(input.userId, input.month),
    storage.findConversation(input.chatbotId, input.sessionId),
  ]);
  return { chatbot, plan, used, conversation };
}
