import type { Conversation, FeedbackRating, Message } from "../domain/conversation.js";
import type { OutboxEvent } from "../domain/events.js";

/** Everything `Storage.rateMessage` needs (docs/design.md §14, "Widget settings, secret and feedback"). */
export interface RateMessage {
  chatbotId: string;
  sessionId: string;
  messageId: string;
  rating: FeedbackRating;
  /** Trimmed by the core; null for none. */
  comment: string | null;
  at: number;
  /** Builds the step's outbox events (`message.rated`) from the stored conversation and the rated message. */
  events: (facts: { conversation: Conversation; message: Message }) => OutboxEvent[];
}

/** One chatbot's ratings in a range of time. */
export interface FeedbackCount {
  chatbotId: string;
  up: number;
  down: number;
}
