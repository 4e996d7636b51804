import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation } from "../domain/conversation.js";
import type { ApiKey, Plan, User } from "../domain/user.js";

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

/** What `Storage.readKeyedChatState` reads: the key of a request, and the chat's state as its user. */
export interface ReadKeyedChatState {
  /** The SHA-256 of the API key, hex. */
  keyHash: string;
  /** The chatbot's id, lower case; null for an id that cannot be one (no chatbot is read). */
  chatbotId: string | null;
  /** The session of the body; null for the key's user's own (`api-<user id>`). */
  sessionId: string | null;
  /** UTC calendar month, `YYYY-MM`. */
  month: string;
}

/** The key with its user, and what a chat checks as that user, read together. */
export interface KeyedChatState {
  /** The key with that hash and its user (revoked keys too), or null; then `state` is empty. */
  key: { apiKey: ApiKey; user: User } | null;
  /** As `readChatState` reads it for the key's user and plan. */
  state: ChatState;
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

/** `readKeyedChatState` from the port's single reads, for adapters where a read costs no round trip (in memory, SQLite). */
export async function readKeyedChatStateInParts(
  storage: SingleReads & { findApiKeyByHash(keyHash: string): Promise<{ apiKey: ApiKey; user: User } | null> },
  input: ReadKeyedChatState,
): Promise<KeyedChatState> {
  const key = await storage.findApiKeyByHash(input.keyHash);
  if (key === null) return { key, state: { chatbot: null, plan: null, used: 0, conversation: null } };
  const { user } = key;
  const sessionId = input.sessionId ?? `api-${user.id}`;
  if (input.chatbotId === null) {
    const [plan, used] = await Promise.all([storage.getPlan(user.planName), storage.getMonthlyUsage(user.id, input.month)]);
    return { key, state: { chatbot: null, plan, used, conversation: null } };
  }
  return { key, state: await readChatStateInParts(storage, { chatbotId: input.chatbotId, sessionId, userId: user.id, planName: user.planName, month: input.month }) };
}
