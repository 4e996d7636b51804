import type { Conversation, ConversationEvent, Message } from "../domain/conversation.js";
import type { AgentStorage } from "../ports/storage.js";

/** What the team steps read and write of the memory storage's state. */
interface MemoryAgentState {
  messages: readonly Message[];
  conversations: ReadonlyMap<string, Conversation>;
  /** Per conversation id, its takeover timeline (written by `setHumanTakeover`). */
  timelines: Map<string, ConversationEvent[]>;
}

/**
 * Read state per key and the takeover timeline in memory. A message's position is its index in
 * the storage's one message list, which only grows: the insertion order, as `seq` is in SQL.
 */
export function createMemoryAgentStore(state: MemoryAgentState): AgentStorage & { unreadOf(apiKeyId: string, conversationId: string): number } {
  /** Per key, per conversation: the position of the last message read. */
  const reads = new Map<string, number>();
  const readKey = (apiKeyId: string, conversationId: string) => `${apiKeyId}\u0000${conversationId}`;
  const unreadOf = (apiKeyId: string, conversationId: string) => {
    const lastRead = reads.get(readKey(apiKeyId, conversationId)) ?? -1;
    let unread = 0;
    state.messages.forEach((message, position) => {
      if (position > lastRead && message.conversationId === conversationId && message.role === "user") unread += 1;
    });
    return unread;
  };

  return {
    unreadOf,
    async markConversationRead({ apiKeyId, conversationId, upToMessageId }) {
      const position = state.messages.findIndex((message) => message.id === upToMessageId && message.conversationId === conversationId);
      if (position === -1) return false;
      const key = readKey(apiKeyId, conversationId);
      reads.set(key, Math.max(reads.get(key) ?? -1, position));
      return true;
    },
    async countUnread(apiKeyId, conversationIds) {
      return Object.fromEntries(conversationIds.map((id) => [id, unreadOf(apiKeyId, id)]));
    },
    async listConversationEvents(conversationIds) {
      return Object.fromEntries(conversationIds.map((id) => [id, structuredClone(state.timelines.get(id) ?? [])]));
    },
  };
}
