import type { Endpoint } from "../endpoint.js";
import { addDocument, deleteDocument, getIngestion, listDocuments, searchKnowledge } from "./documents.js";
import { createChatbot, createWidgetSecret, deleteChatbot, getAdminChatbot, listAdminChatbots, updateChatbot } from "./chatbots.js";
import { endTakeover, getConversation, listConversations, markConversationRead, replyAsAgent, startTakeover } from "./conversations.js";
import { streamEvents } from "./events.js";
import { getHealth } from "./health.js";
import { createKey, listKeys, revokeKey } from "./keys.js";
import { getChatbot, listChatbots, listSessionMessages, sendChatMessage } from "./spec.js";
import { getUsage } from "./usage.js";
import { getWidget, listVisitorMessages, rateVisitorReply, sendVisitorMessage, startVisitorSession, streamVisitorEvents } from "./widget.js";
import { createWebhook, deleteWebhook, listDeliveries, listWebhooks, retryDelivery } from "./webhooks.js";

/**
 * Every endpoint the server answers (besides the console's static files), in the order of
 * docs/openapi.json. A new route is one declaration in its resource's file, listed here.
 */
export const ENDPOINTS: readonly Endpoint[] = [
  sendChatMessage,
  listChatbots,
  getChatbot,
  listSessionMessages,
  getHealth,
  listAdminChatbots,
  createChatbot,
  getAdminChatbot,
  updateChatbot,
  deleteChatbot,
  createWidgetSecret,
  listDocuments,
  addDocument,
  deleteDocument,
  getIngestion,
  searchKnowledge,
  listConversations,
  getConversation,
  startTakeover,
  endTakeover,
  replyAsAgent,
  markConversationRead,
  streamEvents,
  listKeys,
  createKey,
  revokeKey,
  listWebhooks,
  createWebhook,
  deleteWebhook,
  listDeliveries,
  retryDelivery,
  getUsage,
  getWidget,
  startVisitorSession,
  sendVisitorMessage,
  listVisitorMessages,
  streamVisitorEvents,
  rateVisitorReply,
];

/**
 * Every method and path pattern (`([^/]+)` for a parameter) the API answers with JSON, for tools
 * that must cover all routes (the fuzz tests): a declared endpoint is included without more
 * work. The live stream, which never ends, and the public health check are left out.
 */
export const ROUTE_TEMPLATES: ReadonlyArray<{ method: string; path: string }> = ENDPOINTS.filter(
  (endpoint) => endpoint.access.kind === "key" && !endpoint.success.stream,
).map(({ method, path }) => ({ method, path: path.replace(/\{\w+\}/g, "([^/]+)") }));

/**
 * The widget's public routes answering JSON, as patterns (the fuzz covers them with visitor
 * tokens): the session's live events, which never end, are left out.
 */
export const WIDGET_ROUTE_TEMPLATES: ReadonlyArray<{ method: string; path: string }> = ENDPOINTS.filter(
  (endpoint) => endpoint.access.kind === "visitor" && !(endpoint.success.stream && !endpoint.success.schema),
).map(({ method, path }) => ({ method, path: path.replace(/\{\w+\}/g, "([^/]+)") }));
