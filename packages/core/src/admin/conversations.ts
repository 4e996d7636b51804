import type { Chatbot } from "../domain/chatbot.js";
import type { Conversation, Message } from "../domain/conversation.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { conversationStarted, messageSent, publish, takeoverChanged } from "../events/outbox-events.js";
import { MAX_MESSAGE_CHARS } from "../chat/chat-input.js";
import { findLiveChatbot } from "../chatbots/owned-chatbot.js";

type TakeoverDependencies = Pick<Dependencies, "storage" | "ids" | "clock" | "events">;

function assertSession(sessionId: string): void {
  if (sessionId === "" || sessionId.length > 255) throw invalidRequest("session_id: must be 1 to 255 characters");
}

/**
 * Starts (true) or ends (false) a human agent's takeover of the chatbot's conversation of
 * `sessionId`, as one step with its events: `conversation.started` when the conversation is
 * new, a takeover event when the flag changes, kept on the timeline with `by` (the key's name;
 * null from the CLI). Setting what is already set changes nothing.
 */
export async function changeTakeover(
  dependencies: TakeoverDependencies,
  chatbot: Chatbot,
  sessionId: string,
  humanTakeover: boolean,
  by: string | null = null,
): Promise<{ conversation: Conversation; created: boolean; changed: boolean }> {
  const [startedId, changedId] = [dependencies.ids.uuid(), dependencies.ids.uuid()];
  const at = dependencies.clock.now();
  const result = await dependencies.storage.setHumanTakeover({
    chatbotId: chatbot.id,
    sessionId,
    humanTakeover,
    by,
    newConversationId: dependencies.ids.uuid(),
    at,
    events: ({ conversation, created, changed }) => [
      ...(created ? [conversationStarted(startedId, chatbot.ownerId, conversation)] : []),
      ...(changed ? [takeoverChanged(changedId, chatbot.ownerId, conversation, humanTakeover, at)] : []),
    ],
  });
  publish(dependencies.events, result.events);
  return { conversation: result.conversation, created: result.created, changed: result.changed };
}

/**
 * Stores a human agent's reply to a conversation, taking it over first when the chatbot had
 * it, and fires `message.sent`: that is how the visitor's integration gets the reply. The
 * reply clears `needsAttention` and becomes part of the history the model sees later. `agentName`
 * (the key's name; null from the CLI) signs the reply and the takeover it may start.
 */
export async function storeAgentReply(
  dependencies: TakeoverDependencies,
  chatbot: Chatbot,
  conversation: Conversation,
  content: string,
  agentName: string | null = null,
): Promise<Message> {
  const text = content.trim();
  if (text === "") throw invalidRequest("content: must be a non-empty string");
  if ([...text].length > MAX_MESSAGE_CHARS) throw invalidRequest(`content: must be at most ${MAX_MESSAGE_CHARS} characters`);
  if (!conversation.humanTakeover) await changeTakeover(dependencies, chatbot, conversation.sessionId, true, agentName);
  const eventId = dependencies.ids.uuid();
  const { message, events } = await dependencies.storage.appendAssistantMessage({
    id: dependencies.ids.uuid(),
    conversationId: conversation.id,
    content: text,
    author: "agent",
    agentName,
    needsAttention: false,
    at: dependencies.clock.now(),
    events: (stored, message) => [messageSent(eventId, chatbot.ownerId, stored, message)],
  });
  publish(dependencies.events, events);
  return message;
}

/** The CLI's takeover: by chatbot and session, whoever owns the chatbot. */
export async function setHumanTakeover(
  dependencies: TakeoverDependencies,
  chatbotId: string,
  sessionId: string,
  humanTakeover: boolean,
): Promise<{ conversation: Conversation; created: boolean }> {
  assertSession(sessionId);
  const chatbot = await findLiveChatbot(dependencies, chatbotId);
  const { conversation, created } = await changeTakeover(dependencies, chatbot, sessionId, humanTakeover);
  return { conversation, created };
}

/** The CLI's agent reply: by chatbot and session, to an existing conversation. */
export async function replyAsAgent(dependencies: TakeoverDependencies, chatbotId: string, sessionId: string, content: string): Promise<Message> {
  if (content.trim() === "") throw invalidRequest("content: must be a non-empty string");
  const { conversation } = await showConversation(dependencies, chatbotId, sessionId);
  return storeAgentReply(dependencies, await findLiveChatbot(dependencies, chatbotId), conversation, content);
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
