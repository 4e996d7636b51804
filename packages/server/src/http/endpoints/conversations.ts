import { MAX_MESSAGE_CHARS } from "@parley/core";
import { created, defineEndpoint, key, ok, type Tag } from "../endpoint.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";
import { AFTER_REFUSAL } from "./spec.js";

// The operator API's inbox: conversations, takeover and an agent's reply (docs/design.md §9, §10).

export const INBOX: Tag = { name: "admin: conversations", description: "The inbox, takeover, agent replies and live events (admin keys)" };

const CONVERSATION = missing("Conversation");

export const listConversations = defineEndpoint({
  method: "GET",
  path: "/v1/admin/conversations",
  operationId: "listConversations",
  summary: "The inbox: the caller's conversations",
  description:
    "Newest activity first (`updated_at`: a message or a takeover change), so a conversation that gets activity moves to the top. `status=bot` (the chatbot answers), `human` (taken over) or `attention` (`needs_attention` is true). Conversations of deleted chatbots are left out.",
  tag: INBOX,
  access: key("admin"),
  parameters: ["ChatbotFilter", "ConversationStatus", "Limit", "Cursor"],
  success: { status: 200, description: "A page of conversations.", schema: "ConversationPage" },
  notFound: [missing("Chatbot")],
  invalid: [...PAGE_ERRORS, ["badStatus", "An unknown status", "status: must be one of bot, human, attention"]],
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listConversations(caller, query)),
});

export const getConversation = defineEndpoint({
  method: "GET",
  path: "/v1/admin/conversations/{conversation_id}",
  operationId: "getConversation",
  summary: "One conversation with its messages",
  description: "The conversation and every message, oldest first, each with its author (`user`, `model` or `agent`); with `?after=` only the messages after that one (for polling).",
  tag: INBOX,
  access: key("admin"),
  parameters: ["After"],
  success: { status: 200, description: "The conversation.", schema: "ConversationWithMessages" },
  notFound: [CONVERSATION],
  invalid: [AFTER_REFUSAL],
  handle: async ({ parley, caller, params, query }) => ok(await parley.operator.getConversation(caller, params.conversation_id, { after: query.after })),
});

export const startTakeover = defineEndpoint({
  method: "POST",
  path: "/v1/admin/conversations/{conversation_id}/takeover",
  operationId: "startTakeover",
  summary: "A human agent takes the conversation",
  description:
    "From now on chat answers 202 with an empty reply and the model is not called. Fires `conversation.takeover_started` (once: taking over a taken conversation changes nothing). No body is read.",
  tag: INBOX,
  access: key("admin"),
  success: { status: 200, description: "The conversation, taken over.", schema: "Conversation" },
  notFound: [CONVERSATION],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.startTakeover(caller, params.conversation_id)),
});

export const endTakeover = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/conversations/{conversation_id}/takeover",
  operationId: "endTakeover",
  summary: "Give the conversation back to the chatbot",
  description: "The model answers again, with the agent's replies in its history. Fires `conversation.takeover_ended` when the flag changes.",
  tag: INBOX,
  access: key("admin"),
  success: { status: 200, description: "The conversation, handed back.", schema: "Conversation" },
  notFound: [CONVERSATION],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.endTakeover(caller, params.conversation_id)),
});

export const replyAsAgent = defineEndpoint({
  method: "POST",
  path: "/v1/admin/conversations/{conversation_id}/messages",
  operationId: "replyAsAgent",
  summary: "A human agent's reply",
  description:
    "Stores the reply as an `agent` message (taking the conversation over first when the chatbot had it), clears `needs_attention` and fires `message.sent` with `author: agent`: that is how the visitor's integration gets it. A deleted chatbot's conversation is 404.",
  tag: INBOX,
  access: key("admin"),
  body: {
    name: "ReplyRequest",
    schema: {
      type: "object",
      required: ["content"],
      properties: { content: { type: "string", minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "The agent's reply; surrounding whitespace is trimmed." } },
    },
    examples: { example: { summary: "A body", value: { content: "Hi, this is Sam from support. Let me check your order." } } },
  },
  success: { status: 201, description: "The stored message.", schema: "Message" },
  notFound: [CONVERSATION],
  invalid: [
    ["missingContent", "No content", { refused: {} }],
    ["blankContent", "Blank content", "content: must be a non-empty string"],
  ],
  handle: async ({ parley, caller, params, body }) => created(await parley.operator.reply(caller, params.conversation_id, body)),
});
