import type { Conversation, Message } from "../domain/conversation.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { conversationStarted, publish } from "../events/outbox-events.js";
import { findLiveChatbot } from "./chatbot-admin.js";

function assertSession(sessionId: string): void {
  if (sessionId === "" || sessionId.length > 255) throw invalidRequest("session_id: must be 1 to 255 characters");
}

/**
 * Starts (true) or ends (false) a human agent's takeover of the conversation of
 * (chatbot, session). Starting one on a session with no conversation creates it and fires
 * `conversation.started`.
 */
export async function setHumanTakeover(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock" | "events">,
  chatbotId: string,
  sessionId: string,
  humanTakeover: boolean,
): Promise<{ conversation: Conversation; created: boolean }> {
  assertSession(sessionId);
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const eventId = dependencies.ids.uuid();
  const result = await dependencies.storage.setHumanTakeover({
    chatbotId: chatbot.id,
    sessionId,
    humanTakeover,
    newConversationId: dependencies.ids.uuid(),
    at: dependencies.clock.now(),
    events: (conversation) => [conversationStarted(eventId, chatbot.ownerId, conversation)],
  });
  publish(dependencies.events, result.events);
  return { conversation: result.conversation, created: result.created };
}

/** Stores a human agent's reply; it becomes part of the history the model sees later. */
export async function replyAsAgent(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock">,
  chatbotId: string,
  sessionId: string,
  content: string,
): Promise<Message> {
  if (content.trim() === "") throw invalidRequest("content: must be a non-empty string");
  const { conversation } = await showConversation(dependencies, chatbotId, sessionId);
  return dependencies.storage.appendAssistantMessage({
    id: dependencies.ids.uuid(),
    conversationId: conversation.id,
    content: content.trim(),
    author: "agent",
    at: dependencies.clock.now(),
  });
}

/** The conversation of (chatbot, session) with every message, oldest first. */
export async function showConversation(
  dependencies: Pick<Dependencies, "storage">,
  chatbotId: string,
  sessionId: string,
): Promise<{ conversation: Conversation; messages: Message[] }> {
  assertSession(sessionId);
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const conversation = await dependencies.storage.findConversation(chatbot.id, sessionId);
  if (!conversation) throw notFound("Conversation");
  return { conversation, messages: await dependencies.storage.listMessages(conversation.id) };
}
