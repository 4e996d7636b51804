// Inputs of the Storage port's team steps (storage.ts): read state per key, and the timeline
// of takeovers. Kept apart so the port file stays readable.

/** Everything {@link Storage.markConversationRead} needs. */
export interface MarkConversationRead {
  /** The key whose read state moves: each agent (each key) reads for itself. */
  apiKeyId: string;
  conversationId: string;
  /** This message and every earlier one of the conversation become read. */
  upToMessageId: string;
  at: number;
}
