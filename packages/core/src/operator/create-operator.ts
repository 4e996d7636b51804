import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import type { KnowledgeRequest } from "../domain/knowledge.js";
import type { ChatbotSettingsInput, CreateChatbotInput } from "../admin/chatbot-admin.js";
import { requireAdminScope, requireAgentScope } from "../auth/authenticate.js";
import * as accounts from "./operator-accounts.js";
import * as chatbots from "./operator-chatbots.js";
import * as conversations from "./operator-conversations.js";
import type { ConversationQuery } from "./operator-conversations.js";
import type { PageRequest } from "./pages.js";

/**
 * The operator API of docs/design.md §9 as library calls: each takes the caller (an admin-scoped
 * key's, or an agent key's for the conversations) and acts only on that user's chatbots,
 * conversations, keys and webhooks; another user's resource is `not_found`, as a missing one
 * is. The HTTP routes are thin doors onto these.
 */
export function createOperator(dependencies: Dependencies) {
  /** An operation behind a scope rule: the rule runs first, and refuses with `forbidden`. */
  const scoped =
    (rule: (caller: Caller) => void) =>
    <Args extends unknown[], Result>(operation: (dependencies: Dependencies, caller: Caller, ...args: Args) => Promise<Result>) =>
    (caller: Caller, ...args: Args): Promise<Result> => {
      rule(caller);
      return operation(dependencies, caller, ...args);
    };
  /** For admin keys only: managing chatbots, knowledge, keys, webhooks, usage. */
  const admin = scoped(requireAdminScope);
  /** For admin and agent keys (docs/design.md §16): naming the chatbots, and answering conversations. */
  const agent = scoped(requireAgentScope);
  return {
    listChatbots: agent((d, c, page: PageRequest = {}) => chatbots.listChatbots(d, c, page)),
    createChatbot: admin((d, c, input: Omit<CreateChatbotInput, "userId">) => chatbots.createOwnChatbot(d, c, input)),
    getChatbot: admin(chatbots.getChatbot),
    updateChatbot: admin((d, c, chatbotId: string, input: ChatbotSettingsInput) => chatbots.updateChatbot(d, c, chatbotId, input)),
    deleteChatbot: admin(chatbots.removeChatbot),
    createWidgetSecret: admin(chatbots.createWidgetSecret),
    listDocuments: admin((d, c, chatbotId: string, page: PageRequest = {}) => chatbots.listDocuments(d, c, chatbotId, page)),
    addKnowledge: admin((d, c, chatbotId: string, request: KnowledgeRequest) => chatbots.addKnowledge(d, c, chatbotId, request)),
    getIngestion: admin(chatbots.getIngestion),
    deleteDocument: admin(chatbots.removeDocument),
    search: admin((d, c, chatbotId: string, input: { query: string; limit?: number }) => chatbots.searchKnowledge(d, c, chatbotId, input)),
    listConversations: agent((d, c, query: ConversationQuery = {}) => conversations.listConversations(d, c, query)),
    getConversation: agent((d, c, conversationId: string, query: { after?: unknown } = {}) => conversations.getConversation(d, c, conversationId, query)),
    startTakeover: agent((d, c, conversationId: string) => conversations.setTakeover(d, c, conversationId, true)),
    endTakeover: agent((d, c, conversationId: string) => conversations.setTakeover(d, c, conversationId, false)),
    reply: agent((d, c, conversationId: string, input: { content: string }) => conversations.replyToConversation(d, c, conversationId, input)),
    markRead: agent((d, c, conversationId: string, input: { up_to: string }) => conversations.markRead(d, c, conversationId, input)),
    listKeys: admin((d, c, page: PageRequest = {}) => accounts.listKeys(d, c, page)),
    createKey: admin((d, c, input: { name?: string; scope?: string } = {}) => accounts.issueKey(d, c, input)),
    revokeKey: admin(accounts.revokeKey),
    listWebhooks: admin((d, c, page: PageRequest = {}) => accounts.listWebhooks(d, c, page)),
    createWebhook: admin((d, c, input: { url: string; chatbot_id?: string; events?: string[] }) => accounts.addWebhook(d, c, input)),
    deleteWebhook: admin(accounts.removeWebhook),
    listDeliveries: admin((d, c, query: PageRequest & { status?: unknown } = {}) => accounts.listDeliveries(d, c, query)),
    retryDelivery: admin(accounts.retryDelivery),
    getUsage: admin(accounts.getUsage),
  };
}

/** The operator API of a Parley instance. */
export type Operator = ReturnType<typeof createOperator>;
