import type { ConversationSummary } from "../domain/conversation.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { changeTakeover, storeAgentReply } from "../admin/conversations.js";
import { findOwnedChatbot } from "../chatbots/owned-chatbot.js";
import { isUuid } from "../support/ids.js";
import { decodeCursor, encodeCursor, pageOf, pageSize, type PageRequest } from "./pages.js";
import { toConversationView, toMessageView } from "./views.js";

const STATUSES = ["bot", "human", "attention"] as const;

/** The caller's conversation with that id (not of a deleted chatbot), with its chatbot; `not_found` otherwise. */
async function ownedConversation(dependencies: Dependencies, caller: Caller, conversationId: string) {
  const conversation = isUuid(conversationId) ? await dependencies.storage.getConversation(conversationId.toLowerCase()) : null;
  const chatbot = conversation && (await dependencies.storage.getChatbot(conversation.chatbotId));
  if (!conversation || !chatbot || chatbot.ownerId !== caller.user.id || chatbot.deletedAt !== null) throw notFound("Conversation");
  return { conversation, chatbot };
}

/** The messages after `after` (a message id of the conversation), or all of them. */
async function messagesOf(dependencies: Dependencies, conversationId: string, after: unknown) {
  if (after === undefined) return dependencies.storage.listMessages(conversationId);
  const found = typeof after === "string" && isUuid(after) ? await dependencies.storage.listMessagesAfter(conversationId, after.toLowerCase()) : null;
  if (found === null) throw invalidRequest("after: must be the id of a message of this conversation");
  return found;
}

/** The caller's conversations, newest activity first, optionally of one chatbot and one status. */
export async function listConversations(dependencies: Dependencies, caller: Caller, query: PageRequest & { chatbot_id?: unknown; status?: unknown }) {
  const size = pageSize(query);
  const after = decodeCursor("conversations", query.cursor, ["number", "string"]);
  if (query.status !== undefined && !(STATUSES as readonly unknown[]).includes(query.status)) {
    throw invalidRequest(`status: must be one of ${STATUSES.join(", ")}`);
  }
  if (query.chatbot_id !== undefined && typeof query.chatbot_id !== "string") throw invalidRequest("chatbot_id: must be a string");
  const chatbot = query.chatbot_id === undefined ? undefined : await findOwnedChatbot(dependencies, caller.user, query.chatbot_id);
  const rows = await dependencies.storage.listConversations({
    ownerId: caller.user.id,
    chatbotId: chatbot?.id,
    status: query.status as (typeof STATUSES)[number] | undefined,
    limit: size + 1,
    after: after && { at: after[0] as number, id: after[1] as string },
  });
  return pageOf(rows, size, toConversationView, (row: ConversationSummary) => encodeCursor("conversations", [row.updatedAt, row.id]));
}

/** One of the caller's conversations with its messages, oldest first (only those after `after` when given). */
export async function getConversation(dependencies: Dependencies, caller: Caller, conversationId: string, query: { after?: unknown } = {}) {
  const { conversation } = await ownedConversation(dependencies, caller, conversationId);
  const messages = await messagesOf(dependencies, conversation.id, query.after);
  return { ...toConversationView(conversation), messages: messages.map(toMessageView) };
}

/** A human agent takes the caller's conversation (true) or gives it back to the chatbot (false). */
export async function setTakeover(dependencies: Dependencies, caller: Caller, conversationId: string, humanTakeover: boolean) {
  const { conversation, chatbot } = await ownedConversation(dependencies, caller, conversationId);
  await changeTakeover(dependencies, chatbot, conversation.sessionId, humanTakeover);
  return toConversationView((await dependencies.storage.getConversation(conversation.id))!);
}

/** A human agent's reply to the caller's conversation (taking it over first if needed): 201 with the message. */
export async function replyToConversation(dependencies: Dependencies, caller: Caller, conversationId: string, input: { content: string }) {
  const { conversation, chatbot } = await ownedConversation(dependencies, caller, conversationId);
  return toMessageView(await storeAgentReply(dependencies, chatbot, conversation, input.content));
}

/**
 * A session's messages for an integration that cannot receive webhooks (docs/design.md §10):
 * any key of the chatbot's owner; 404 when the session has no conversation.
 */
export async function listSessionMessages(dependencies: Dependencies, caller: Caller, chatbotId: string, sessionId: string, query: { after?: unknown } = {}) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  const conversation = sessionId.length >= 1 && sessionId.length <= 255 ? await dependencies.storage.findConversation(chatbot.id, sessionId) : null;
  if (!conversation) throw notFound("Conversation");
  return { data: (await messagesOf(dependencies, conversation.id, query.after)).map(toMessageView) };
}
