import { MAX_MESSAGE_CHARS } from "@parley/core";
import { created, defineEndpoint, key, ok, type Tag } from "../endpoint.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";
import { AFTER_REFUSAL } from "./spec.js";

// The operator API's inbox: conversations, takeover and an agent's reply (docs/design.md §9, §10).

export const INBOX: Tag = { name: "admin: conversations", description: "The inbox, takeover, agent replies, read state and live events (admin and agent keys)" };

const CONVERSATION = missing("Conversation");

/** The inbox is for admin keys and agent keys alike (docs/design.md §16). */
export const TEAM = key("admin", "agent");

export const listConversations = defineEndpoint({
  method: "GET",
  path: "/v1/admin/conversations",
  operationId: "listConversations",
  summary: "The inbox: the caller's conversations",
  description:
    "Newest activity first (`updated_at`: a message or a takeover change), so a conversation that gets activity moves to the top. `status=bot` (the chatbot answers), `human` (taken over) or `attention` (`needs_attention` is true). `unread=true`: only those with visitor messages the calling key has not read. Conversations of deleted chatbots are left out.",
  tag: INBOX,
  access: TEAM,
  parameters: ["ChatbotFilter", "ConversationStatus", "Unread", "Limit", "Cursor"],
  success: { status: 200, description: "A page of conversations.", schema: "ConversationPage" },
  notFound: [missing("Chatbot")],
  invalid: [...PAGE_ERRORS, ["badStatus", "An unknown status", "status: must be one of bot, human, attention"], ["badUnread", "`unread` neither true nor false", "unread: must be true or false"]],
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listConversations(caller, query)),
});

export const getConversation = defineEndpoint({
  method: "GET",
  path: "/v1/admin/conversations/{conversation_id}",
  operationId: "getConversation",
  summary: "One conversation with its messages",
  description: "The conversation and every message, oldest first, each with its author (`user`, `model` or `agent`); with `?after=` only the messages after that one (for polling).",
  tag: INBOX,
  access: TEAM,
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
    "From now on chat answers 202 with an empty reply and the model is not called. Fires `conversation.takeover_started` (once: taking over a taken conversation changes nothing) and adds a `takeover_started` entry with the key's name to `events`. No body is read.",
  tag: INBOX,
  access: TEAM,
  success: { status: 200, description: "The conversation, taken over.", schema: "Conversation" },
  notFound: [CONVERSATION],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.startTakeover(caller, params.conversation_id)),
});

export const endTakeover = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/conversations/{conversation_id}/takeover",
  operationId: "endTakeover",
  summary: "Give the conversation back to the chatbot",
  description: "The model answers again, with the agent's replies in its history. Fires `conversation.takeover_ended` and adds a `takeover_ended` entry with the key's name to `events` when the flag changes.",
  tag: INBOX,
  access: TEAM,
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
    "Stores the reply as an `agent` message signed with the calling key's name (`agent_name`), taking the conversation over first when the chatbot had it; clears `needs_attention` and fires `message.sent` with `author: agent` and `agent_name`: that is how the visitor's integration gets it. A deleted chatbot's conversation is 404.",
  tag: INBOX,
  access: TEAM,
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

export const markConversationRead = defineEndpoint({
  method: "POST",
  path: "/v1/admin/conversations/{conversation_id}/read",
  operationId: "markConversationRead",
  summary: "Mark messages read for the calling key",
  description:
    "The message `up_to` and every earlier one of the conversation become read for the calling key (each agent, each key, reads for itself): `unread_count` counts the visitor messages after it, and `?unread=true` leaves the conversation out until a visitor writes again. Read state never moves back: an earlier message changes nothing.",
  tag: INBOX,
  access: TEAM,
  body: {
    name: "MarkReadRequest",
    schema: {
      type: "object",
      required: ["up_to"],
      properties: { up_to: { type: "string", minLength: 1, maxLength: 64, description: "The id of a message of this conversation: it and every earlier one become read for the calling key." } },
    },
    examples: { example: { summary: "A body", value: { up_to: "8c6f8d2e-2f0a-4b8e-9d51-0c1e5f7a9b3d" } } },
  },
  success: { status: 204, description: "Marked read." },
  notFound: [CONVERSATION],
  invalid: [
    ["missingUpTo", "No up_to", { refused: {} }],
    ["foreignMessage", "`up_to` is not a message of this conversation", "up_to: must be the id of a message of this conversation"],
  ],
  handle: async ({ parley, caller, params, body }) => {
    await parley.operator.markRead(caller, params.conversation_id, body);
    return { status: 204, body: null };
  },
});
