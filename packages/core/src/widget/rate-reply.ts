import { FEEDBACK_RATINGS, MAX_FEEDBACK_COMMENT_CHARS, type FeedbackRating, type MessageFeedback } from "../domain/conversation.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { findLiveChatbot } from "../admin/chatbot-admin.js";
import { messageRated, publish } from "../events/outbox-events.js";
import { isUuid } from "../support/ids.js";
import { formatTimestamp } from "../support/time.js";

/** What a rating takes: `{rating: "up" | "down", comment?}`. */
export interface RateReplyInput {
  rating: FeedbackRating;
  comment?: string | null;
}

/** A rating in its wire form, as message views show it. */
export interface FeedbackView {
  rating: FeedbackRating;
  comment: string | null;
  created_at: string;
}

/** A stored rating in its wire form; null stays null. */
export const toFeedbackView = (feedback: MessageFeedback | null): FeedbackView | null =>
  feedback && { rating: feedback.rating, comment: feedback.comment, created_at: formatTimestamp(feedback.createdAt) };

/** The rating and comment of a request, checked: the comment trimmed, an empty one null. */
export function checkRating(input: unknown): { rating: FeedbackRating; comment: string | null } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw invalidRequest("body: must be a JSON object");
  const { rating, comment } = input as Record<string, unknown>;
  if (typeof rating !== "string" || !(FEEDBACK_RATINGS as readonly string[]).includes(rating)) throw invalidRequest(`rating: must be one of ${FEEDBACK_RATINGS.join(", ")}`);
  if (comment !== undefined && comment !== null && typeof comment !== "string") throw invalidRequest("comment: must be a string");
  const text = typeof comment === "string" ? comment.trim() : "";
  if ([...text].length > MAX_FEEDBACK_COMMENT_CHARS) throw invalidRequest(`comment: must be at most ${MAX_FEEDBACK_COMMENT_CHARS} characters`);
  return { rating: rating as FeedbackRating, comment: text === "" ? null : text };
}

/**
 * Rates a model reply of the conversation of (chatbot, session) (docs/design.md §14): stored with
 * the message, replacing an earlier rating, and `message.rated` written to the outbox in the same
 * step. `not_found` ("Chatbot not found.") for a missing or deleted chatbot, and ("Message not
 * found.") for a message that is not a model reply of that conversation (a visitor's message, an
 * agent's reply, another session's or chatbot's message, an unknown or malformed id).
 */
export async function rateReply(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock" | "events">,
  chatbotId: string,
  sessionId: string,
  messageId: string,
  input: unknown,
): Promise<FeedbackView> {
  const { rating, comment } = checkRating(input);
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  if (!isUuid(messageId) || typeof sessionId !== "string") throw notFound("Message");
  const eventId = dependencies.ids.uuid();
  const rated = await dependencies.storage.rateMessage({
    chatbotId: chatbot.id,
    sessionId,
    messageId: messageId.toLowerCase(),
    rating,
    comment,
    at: dependencies.clock.now(),
    events: ({ conversation, message }) => [messageRated(eventId, chatbot.ownerId, conversation, message)],
  });
  if (!rated) throw notFound("Message");
  publish(dependencies.events, rated.events);
  return toFeedbackView(rated.message.feedback)!;
}
