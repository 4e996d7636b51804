// Inputs of the Storage port's operator steps (storage.ts): conversation lists, ingestions, the
// outbox as a feed, and usage. Kept apart so the port file stays readable.
import type { OutboxEvent } from "../domain/events.js";
import type { Conversation, Message, MessageSource } from "../domain/conversation.js";

/** Keyset position in a list sorted by a time, newest first, ties by id ascending. */
export interface ListPosition {
  at: number;
  id: string;
}

/** Which conversations {@link Storage.listConversations} returns. */
export interface ConversationFilter {
  /** The owner of the chatbots; conversations of deleted chatbots are never listed. */
  ownerId: string;
  chatbotId?: string;
  /** `bot`: the chatbot answers; `human`: an agent has it; `attention`: it needs one. */
  status?: "bot" | "human" | "attention";
  /** Only conversations with visitor messages this key (an API key id) has not read. */
  unreadFor?: string;
  limit: number;
  /** Only conversations after this position (by `updatedAt` desc, then id). */
  after?: ListPosition;
}

/** Everything {@link Storage.appendAssistantMessage} needs. */
export interface AppendAssistantMessage {
  id: string;
  conversationId: string;
  content: string;
  author: "model" | "agent";
  /** The agent's key name, for an agent's reply (absent or null for the model's). */
  agentName?: string | null;
  /** The documents a model reply's context came from, stored with it; default `[]`. */
  sources?: MessageSource[];
  /** The reply is the fallback message: the conversation needs an agent (reason `fallback`). */
  needsAttention: boolean;
  /** Builds the outbox events of the stored message (`message.sent`), in the same step, from the conversation after it. */
  events: (conversation: Conversation, message: Message) => OutboxEvent[];
  at: number;
  /**
   * The conversation as the caller last read it, if it did (a chat has it from accepting the
   * message). A hint only: an adapter over a networked database builds the step from it and
   * writes it in one statement that applies only while the stored conversation is still this
   * one; otherwise it reads the conversation again. The outcome is the same either way.
   */
  conversation?: Conversation;
}

/** Where {@link Storage.readOutbox} starts, and how much it returns. */
export interface ReadOutbox {
  /** Events written after this position (0: from the first). */
  afterPosition: number;
  limit: number;
  /** Only this user's events, when set. */
  userId?: string;
}

/** An outbox event with its position, which orders the outbox and is never reused. */
export interface PositionedEvent {
  position: number;
  event: OutboxEvent;
}

/** Messages per chatbot and per UTC day, for the usage view. */
export interface UsageBreakdown {
  byChatbot: { chatbotId: string; messages: number }[];
  byDay: { date: string; messages: number }[];
}

/** A lease on the next ingestion to run, for {@link Storage.claimIngestion}. */
export interface ClaimIngestion {
  now: number;
  leaseUntil: number;
  /**
   * Ingestions of one user that may run at once: a user with that many live leases waits while
   * other users' ingestions are claimed, so one tenant's queue cannot hold every runner.
   */
  perUser: number;
}

/** Progress of a running ingestion, for {@link Storage.updateIngestion}; it extends the lease. */
export interface IngestionProgressUpdate {
  /** The `startedAt` of the claim: identifies the run, so a runner whose lease was taken over writes nothing. */
  startedAt: number;
  documentsTotal: number | null;
  documentsDone: number;
  chunks: number;
  errors: { source: string; detail: string }[];
  leaseUntil: number;
  /** Set to finish it: the final status and when. */
  finished?: { status: "succeeded" | "failed"; at: number };
}
