import type { Chatbot } from "../domain/chatbot.js";
import type { OutboxEvent } from "../domain/events.js";
import type { User } from "../domain/user.js";
import type { WidgetSettings } from "../domain/widget.js";
import type { Dependencies } from "../dependencies.js";
import { chatbotNotFound, forbidden, invalidRequest, ParleyError } from "../errors.js";
import { chat } from "../chat/chat-pipeline.js";
import { chatStream, type ReplyGenerations } from "../chat/chat-stream.js";
import { isUuid } from "../support/ids.js";
import type { VisitorTokens } from "./visitor-tokens.js";
import { findWidgetChatbot } from "./widget-chatbot.js";
import { rateReply } from "./rate-reply.js";
import { toVisitorMessageView } from "./visitor-view.js";
import { verifyWidgetUserHash, widgetSecretOf } from "./widget-secrets.js";

// The visitor's side of the chat widget (docs/design.md §14): the public appearance, sessions
// and their tokens, the per-address limits, and the visitor's messages as chats of the owner.

/** The refusal of a missing, altered, expired or another chatbot's visitor token. */
export const VISITOR_UNAUTHORIZED = "The visitor session is missing, invalid or expired.";
/** The refusal of an identity whose hash does not match, or of no identity where one is required. */
export const IDENTITY_NOT_VERIFIED = "The visitor's identity could not be verified.";
/** The longest `user_id` a host site may give. */
export const MAX_USER_ID_CHARS = 128;

/** The two per-address limits of the public routes. */
export type VisitorLimit = "sessions" | "messages";

/** The refusal of one request too many from one client address. */
export function visitorLimitDetail(limit: VisitorLimit, allowed: number): string {
  return limit === "sessions"
    ? `Too many new chat sessions from this address: at most ${allowed} an hour. Try again later.`
    : `Too many chat messages from this address: at most ${allowed} a minute. Slow down and try again.`;
}

/** A chatbot whose widget is on, as the public routes see it. */
export interface WidgetChatbot {
  chatbot: Chatbot;
  widget: WidgetSettings;
}

/** What the visitor's side needs beyond the core's dependencies. */
export interface VisitorOptions {
  tokens: VisitorTokens;
  generations: ReplyGenerations;
}

/** Whether an outbox event belongs on a visitor session's event stream. */
export function isVisitorEvent(event: OutboxEvent, chatbotId: string, sessionId: string): boolean {
  if (event.chatbotId !== chatbotId) return false;
  if (event.type !== "message.sent" && event.type !== "conversation.takeover_started" && event.type !== "conversation.takeover_ended") return false;
  return event.data.session_id === sessionId;
}

/** The visitor operations of one Parley instance (`parley.widget`). */
export function createVisitorDesk(dependencies: Dependencies, options: VisitorOptions) {
  const { storage, clock, settings } = dependencies;

  /** The chatbot with its widget on; the same `not_found` for a malformed id, a missing, deleted or widget-off chatbot. */
  async function find(chatbotId: string): Promise<WidgetChatbot> {
    const chatbot = await findWidgetChatbot(dependencies, chatbotId);
    return { chatbot, widget: chatbot.widget };
  }

  /** The owner a visitor's messages are chats of. */
  async function ownerOf(chatbot: Chatbot): Promise<{ user: User }> {
    const user = await storage.getUser(chatbot.ownerId);
    if (!user) throw chatbotNotFound();
    return { user };
  }

  return {
    find,

    /** The public appearance of a chatbot's widget; `available` is false while it is paused. */
    appearance: ({ chatbot, widget }: WidgetChatbot) => ({
      title: widget.title ?? chatbot.name,
      welcome_message: widget.welcome_message,
      starter_questions: widget.starter_questions,
      accent_color: widget.accent_color,
      position: widget.position,
      identity_required: widget.identity_required,
      available: chatbot.isActive,
    }),

    /**
     * Counts one request of a client address against a limit (sessions an hour, messages a
     * minute), shared by every process through the rate limiter; `rate_limited` past it.
     */
    async admit(address: string, limit: VisitorLimit): Promise<void> {
      const allowed = limit === "sessions" ? settings.widgetSessionsPerHour : settings.widgetMessagesPerMinute;
      const decision = await dependencies.rateLimiter.hit(`widget-${limit}:${address}`, allowed, limit === "sessions" ? 3_600_000 : 60_000);
      if (!decision.allowed) throw new ParleyError("rate_limited", visitorLimitDetail(limit, allowed), { retryAfterSeconds: Math.max(1, Math.ceil(decision.retryAfterMs / 1000)) });
    },

    /**
     * A new visitor session: `user-<user_id>` for an identity whose `user_hash` is the HMAC of
     * the chatbot's secret, else `visitor-` and 22 random characters (refused when the widget
     * requires an identity). Nothing is stored: the session's conversation starts with its first message.
     */
    startSession({ chatbot, widget }: WidgetChatbot, input: { user_id?: string; user_hash?: string }): { session_id: string; token: string } {
      let sessionId: string;
      if (input.user_id !== undefined) {
        if (input.user_id.length < 1 || input.user_id.length > MAX_USER_ID_CHARS) throw invalidRequest(`user_id: must be 1 to ${MAX_USER_ID_CHARS} characters`);
        if (!verifyWidgetUserHash(widgetSecretOf(dependencies.widgetSecrets, chatbot), input.user_id, input.user_hash)) throw forbidden(IDENTITY_NOT_VERIFIED);
        sessionId = `user-${input.user_id}`;
      } else {
        if (widget.identity_required) throw forbidden(IDENTITY_NOT_VERIFIED);
        sessionId = `visitor-${dependencies.ids.secret(16)}`;
      }
      return { session_id: sessionId, token: options.tokens.issue(chatbot.id, sessionId, clock.now()) };
    },

    /** The session a visitor token names for this chatbot; `unauthorized` for a missing, altered, expired or another chatbot's token. */
    session({ chatbot }: WidgetChatbot, token: string | undefined): string {
      const sessionId = options.tokens.verify(chatbot.id, token, clock.now());
      if (sessionId === null) throw new ParleyError("unauthorized", VISITOR_UNAUTHORIZED);
      return sessionId;
    },

    /** The visitor's message as a chat of the owner with the session: the spec's whole pipeline. */
    async send({ chatbot, widget }: WidgetChatbot, sessionId: string, message: string) {
      requireIdentity(widget, sessionId);
      const result = await chat(dependencies, await ownerOf(chatbot), chatbot.id, { message, session_id: sessionId });
      return { message: toVisitorMessageView(result.message), reply: result.reply && toVisitorMessageView(result.reply) };
    },

    /** The same, streamed (`chatStream`): the reply is generated and stored even if the reader stops. */
    async stream({ chatbot, widget }: WidgetChatbot, sessionId: string, message: string, signal?: AbortSignal) {
      requireIdentity(widget, sessionId);
      return chatStream(dependencies, await ownerOf(chatbot), chatbot.id, { message, session_id: sessionId }, signal ? { signal } : {}, options.generations);
    },

    /** The session's messages, oldest first (those after `after` when given); none before its first message. */
    async messages({ chatbot }: WidgetChatbot, sessionId: string, after?: string) {
      const conversation = await storage.findConversation(chatbot.id, sessionId);
      const afterId = after?.toLowerCase();
      const found =
        after === undefined ? (conversation ? await storage.listMessages(conversation.id) : []) : conversation && isUuid(after) ? await storage.listMessagesAfter(conversation.id, afterId!) : null;
      if (found === null) throw invalidRequest("after: must be the id of a message of this conversation");
      return { data: found.map(toVisitorMessageView) };
    },

    /**
     * Rates a model reply of the session (`parley.rateReply`): `not_found` for any other message;
     * rating again replaces the rating, and `message.rated` fires each time.
     */
    rate: async ({ chatbot }: WidgetChatbot, sessionId: string, messageId: string, input: unknown) => rateReply(dependencies, chatbot.id, sessionId, messageId, input),

    /** The owner whose event feed carries the session's events. */
    ownerId: ({ chatbot }: WidgetChatbot) => chatbot.ownerId,
  };
}

/** The visitor operations' type. */
export type VisitorDesk = ReturnType<typeof createVisitorDesk>;

/** A widget that requires an identity refuses an anonymous session's messages, even one started before the owner asked for it. */
function requireIdentity(widget: WidgetSettings, sessionId: string): void {
  if (widget.identity_required && !sessionId.startsWith("user-")) throw forbidden(IDENTITY_NOT_VERIFIED);
}
