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

/** What the conversation list takes: a page, and the chatbot, status and unread filters (query text). */
export type ConversationQuery = PageRequest & { chatbot_id?: unknown; status?: unknown; unread?: unknown };

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

/** The views of conversations for the calling key: each with its unread count and timeline, read in two batched steps. */
async function viewsFor(dependencies: Dependencies, caller: Caller, conversations: readonly ConversationSummary[]) {
  const ids = conversations.map((conversation) => conversation.id);
  const [unread, timelines] = await Promise.all([dependencies.storage.countUnread(caller.apiKey.id, ids), dependencies.storage.listConversationEvents(ids)]);
  return conversations.map((conversation) => toConversationView(conversation, { unreadCount: unread[conversation.id] ?? 0, events: timelines[conversation.id] ?? [] }));
}

/** `?unread=true` or `false` (absent: every conversation). */
function unreadFilterOf(value: unknown): boolean {
  if (value === undefined || value === "false" || value === false) return false;
  if (value === "true" || value === true) return true;
  throw invalidRequest("unread: must be true or false");
}

/** The caller's conversations, newest activity first, optionally of one chatbot, one status, or with messages the calling key has not read. */
export async function listConversations(dependencies: Dependencies, caller: Caller, query: ConversationQuery) {
  const size = pageSize(query);
  const after = decodeCursor("conversations", query.cursor, ["number", "string"]);
  if (query.status !== undefined && !(STATUSES as readonly unknown[]).includes(query.status)) {
    throw invalidRequest(`status: must be one of ${STATUSES.join(", ")}`);
  }
  const unreadOnly = unreadFilterOf(query.unread);
  if (query.chatbot_id !== undefined && typeof query.chatbot_id !== "string") throw invalidRequest("chatbot_id: must be a string");
  const chatbot = query.chatbot_id === undefined ? undefined : await findOwnedChatbot(dependencies, caller.user, query.chatbot_id);
  const rows = await dependencies.storage.listConversations({
    ownerId: caller.user.id,
    chatbotId: chatbot?.id,
    status: query.status as (typeof STATUSES)[number] | undefined,
    unreadFor: unreadOnly ? caller.apiKey.id : undefined,
    limit: size + 1,
    after: after && { at: after[0] as number, id: after[1] as string },
  });
  const page = pageOf(rows, size, (row) => row, (row: ConversationSummary) => encodeCursor("conversations", [row.updatedAt, row.id]));
  return { data: await viewsFor(dependencies, caller, page.data), next_cursor: page.next_cursor };
}

/** One of the caller's conversations with its messages, oldest first (only those after `after` when given). */
export async function getConversation(dependencies: Dependencies, caller: Caller, conversationId: string, query: { after?: unknown } = {}) {
  const { conversation } = await ownedConversation(dependencies, caller, conversationId);
  const messages = await messagesOf(dependencies, conversation.id, query.after);
  const [view] = await viewsFor(dependencies, caller, [conversation]);
  return { ...view!, messages: messages.map(toMessageView) };
}

/** A human agent takes the caller's conversation (true) or gives it back to the chatbot (false); kept on its timeline with the key's name. */
export async function setTakeover(dependencies: Dependencies, caller: Caller, conversationId: string, humanTakeover: boolean) {
  const { conversation, chatbot } = await ownedConversation(dependencies, caller, conversationId);
  await changeTakeover(dependencies, chatbot, conversation.sessionId, humanTakeover, caller.apiKey.name);
  const [view] = await viewsFor(dependencies, caller, [(await dependencies.storage.getConversation(conversation.id))!]);
  return view!;
}

/** A human agent's reply to the caller's conversation (taking it over first if needed), signed with the key's name: 201 with the message. */
export async function replyToConversation(dependencies: Dependencies, caller: Caller, conversationId: string, input: { content: string }) {
  const { conversation, chatbot } = await ownedConversation(dependencies, caller, conversationId);
  return toMessageView(await storeAgentReply(dependencies, chatbot, conversation, input.content, caller.apiKey.name));
}

/** Marks the message `up_to` and every earlier one of the caller's conversation read for the calling key (docs/design.md §16). */
export async function markRead(dependencies: Dependencies, caller: Caller, conversationId: string, input: { up_to: string }): Promise<void> {
  const { conversation } = await ownedConversation(dependencies, caller, conversationId);
  const marked =
    isUuid(input.up_to) &&
    (await dependencies.storage.markConversationRead({ apiKeyId: caller.apiKey.id, conversationId: conversation.id, upToMessageId: input.up_to.toLowerCase(), at: dependencies.clock.now() }));
  if (!marked) throw invalidRequest("up_to: must be the id of a message of this conversation");
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
