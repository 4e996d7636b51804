/** A conversation is keyed by (chatbotId, sessionId). */
export interface Conversation {
  id: string;
  chatbotId: string;
  sessionId: string;
  /** While true, chat stores inbound messages and generates no reply. */
  humanTakeover: boolean;
  /**
   * The chatbot could not answer the latest user message: its latest reply is the fallback
   * message, or the provider failed. Cleared when an agent replies or the model answers.
   */
  needsAttention: boolean;
  /** Why it needs an agent: the latest reply is the fallback, or the provider failed; null when it does not. */
  attentionReason: AttentionReason | null;
  /** Stored messages, user and assistant. */
  messageCount: number;
  createdAt: number;
  /** Last activity: the latest message or takeover change (the creation at first). */
  updatedAt: number;
}

/** A conversation of (chatbot, session) just started at `at`: no message yet, no agent needed. */
export const newConversation = (input: { id: string; chatbotId: string; sessionId: string; humanTakeover: boolean; at: number }): Conversation => ({
  id: input.id,
  chatbotId: input.chatbotId,
  sessionId: input.sessionId,
  humanTakeover: input.humanTakeover,
  needsAttention: false,
  attentionReason: null,
  messageCount: 0,
  createdAt: input.at,
  updatedAt: input.at,
});

/** A visitor's message to a conversation, as chat stores it at `at`: no agent, no sources, no rating. */
export const newUserMessage = (input: { id: string; conversationId: string; content: string; at: number }): Message => ({
  id: input.id,
  conversationId: input.conversationId,
  role: "user",
  author: "end_user",
  content: input.content,
  agentName: null,
  createdAt: input.at,
  sources: [],
  feedback: null,
});

/** Why a conversation needs an agent (docs/design.md §16). */
export type AttentionReason = "fallback" | "provider_failed";

/** A takeover started or ended, by whom (the key's name; null from the CLI) and when. */
export interface ConversationEvent {
  type: "takeover_started" | "takeover_ended";
  by: string | null;
  at: number;
}

/** A conversation with its latest message, as lists show it. */
export interface ConversationSummary extends Conversation {
  lastMessage: Message | null;
}

/** `user` for inbound messages; `assistant` for the model's or a human agent's replies. */
export type MessageRole = "user" | "assistant";

/** Who wrote an assistant message: the model or a human agent during a takeover. */
export type MessageAuthor = "end_user" | "model" | "agent";

/**
 * A document a model reply's context came from, as the prompt used it: each document once, in
 * the order its first chunk appears in the prompt.
 */
export interface MessageSource {
  documentId: string;
  /** The document's title, as its list shows it. */
  title: string;
  /** The file name or URL it was read from. */
  source: string;
  /** The PDF page of the first chunk the prompt used from it; null for any other document. */
  page: number | null;
}

/** A visitor's rating of a model reply. */
export type FeedbackRating = "up" | "down";

/** The ratings, for validation. */
export const FEEDBACK_RATINGS: readonly FeedbackRating[] = ["up", "down"];

/** The longest comment a rating may carry, in characters. */
export const MAX_FEEDBACK_COMMENT_CHARS = 1000;

/** A model reply's rating (docs/design.md §14): the latest one; rating again replaces it. */
export interface MessageFeedback {
  rating: FeedbackRating;
  /** The visitor's words, trimmed; null when none. */
  comment: string | null;
  createdAt: number;
}

/** One stored message. One message is one turn of history. */
export interface Message {
  id: string;
  conversationId: string;
  role: MessageRole;
  author: MessageAuthor;
  content: string;
  /** The name of the agent's key for an agent's reply; null for the model and visitors. */
  agentName: string | null;
  createdAt: number;
  /** The documents a model reply's context came from; `[]` for every other message and when no context was used. */
  sources: MessageSource[];
  /** A model reply's rating; null until rated, and always for every other message. */
  feedback: MessageFeedback | null;
}
