import { API_KEY_SCOPES, DELIVERY_STATUSES, DEFAULT_WIDGET_SETTINGS, EVENT_TYPES, FEEDBACK_RATINGS, MAX_FEEDBACK_COMMENT_CHARS, WIDGET_LIMITS, WIDGET_POSITIONS } from "@parley/core";
import { chatbotDetailSchema, count, nullable, record, timestamp, uuid } from "./views-chat.js";

// The JSON Schemas of what the operator API answers (docs/design.md §9), field for field the
// views of packages/core/src/operator/views.ts. docs/openapi.json embeds them, and the tests
// validate real answers of a running server with them.

/** A list page: `{"data": [...], "next_cursor": string|null}`. */
const pageOf = (items: object, description: string) =>
  record({ data: { type: "array", items }, next_cursor: { ...nullable({ type: "string" }), description: "Pass as `?cursor=` for the next page; null on the last." } }, description);

const AUTHORS = ["user", "model", "agent"] as const;

/**
 * The widget settings (docs/design.md §14), field by field: what the admin view shows and what
 * `PATCH /v1/admin/chatbots/{id}` takes under `widget` (any part). The core checks what JSON
 * Schema cannot say (an origin's form, the colour), with the same `field: problem` details.
 */
export const widgetSettingsProperties = {
  enabled: { type: "boolean", description: "Whether the widget and its public routes answer; `false` (the default) makes every public route 404." },
  allowed_origins: {
    type: "array",
    maxItems: WIDGET_LIMITS.allowedOrigins,
    items: { type: "string", maxLength: WIDGET_LIMITS.originLength },
    description: `Up to ${WIDGET_LIMITS.allowedOrigins} web origins that may embed the widget, each exactly \`scheme://host[:port]\` (http or https, lower case; no path, no wildcard, no trailing slash), e.g. \`https://shop.example.com\`.`,
  },
  title: {
    ...nullable({ type: "string", minLength: 1, maxLength: WIDGET_LIMITS.title } as const),
    description: `The frame's title, 1–${WIDGET_LIMITS.title} characters. The view shows the chatbot's name when none was set; \`null\` sets it back to the name.`,
  },
  welcome_message: { type: "string", maxLength: WIDGET_LIMITS.welcomeMessage, description: "Shown first in the frame, never stored as a message; may be empty." },
  starter_questions: {
    type: "array",
    maxItems: WIDGET_LIMITS.starterQuestions,
    items: { type: "string", minLength: 1, maxLength: WIDGET_LIMITS.starterQuestion },
    description: `Up to ${WIDGET_LIMITS.starterQuestions} questions, each 1–${WIDGET_LIMITS.starterQuestion} characters, shown as buttons that send themselves.`,
  },
  accent_color: { type: "string", description: `\`#rrggbb\` (stored lower case); default \`${DEFAULT_WIDGET_SETTINGS.accent_color}\`.` },
  position: { type: "string", enum: [...WIDGET_POSITIONS], description: "Where the launcher sits on the host page." },
  identity_required: { type: "boolean", description: "Only visitors with a verified identity (`user_id` and `user_hash`) may chat." },
} as const;

/** The widget settings in the admin view: every field, the title resolved, and whether an identity secret exists. */
const adminWidgetSchema = record(
  {
    ...widgetSettingsProperties,
    title: { type: "string", description: "The frame's title: the chatbot's name unless one was set." },
    has_secret: { type: "boolean", description: "Whether an identity secret was made (`POST .../widget-secret`); the secret itself is never shown again." },
  },
  "The chat widget's settings (docs/design.md §14); off by default.",
);

/** The admin view of a chatbot: the spec's detail form plus model, last change, knowledge size and widget. */
const adminChatbotSchema = record({
  ...chatbotDetailSchema.properties,
  model: { type: "string" },
  updated_at: timestamp,
  documents: { ...count, description: "Documents in its knowledge." },
  chunks: { ...count, description: "Chunks in its knowledge." },
  widget: adminWidgetSchema,
});

/** A new widget identity secret, shown once. */
const widgetSecretSchema = record(
  { secret: { type: "string", pattern: "^wsec_[A-Za-z0-9_-]{43}$", description: "Shown this once. `user_hash` = lowercase hex HMAC-SHA256 of the `user_id` keyed with this whole string." } },
  "The chatbot's new widget identity secret; the old one stops working.",
);

/** A document a model reply's context came from. */
export const messageSourceSchema = record(
  {
    document_id: uuid,
    title: { type: "string", description: "The document's title, as its list shows it." },
    source: { type: "string", description: "The file name or URL it was read from (a text's title). A file added with `parley ingest` is named by its absolute path on the operator's routes, by its file name alone on the widget's." },
    page: { ...nullable({ type: "integer", minimum: 1 }), description: "The PDF page of the first chunk the prompt used from it; null for any other document." },
  },
  "A document the reply's context came from.",
);

/** A visitor's rating of a model reply (docs/design.md §14). */
export const messageFeedbackSchema = record(
  {
    rating: { type: "string", enum: [...FEEDBACK_RATINGS] },
    comment: { ...nullable({ type: "string", maxLength: MAX_FEEDBACK_COMMENT_CHARS } as const), description: `The visitor's words, at most ${MAX_FEEDBACK_COMMENT_CHARS} characters; null when none.` },
    created_at: { ...timestamp, description: "When it was rated (the latest rating)." },
  },
  "A visitor's rating of a model reply.",
);

/** A message of a conversation. */
export const messageSchema = record({
  id: uuid,
  author: { type: "string", enum: [...AUTHORS], description: "`user`: the visitor; `model`: the chatbot; `agent`: a human agent." },
  agent_name: { ...nullable({ type: "string" }), description: "The name of the key an agent replied with; null for the model and the visitor." },
  content: { type: "string" },
  created_at: timestamp,
  sources: {
    type: "array",
    items: messageSourceSchema,
    description: "For a model reply: the documents its context came from, in the order the prompt used them, each once. `[]` when no context was used, and for every other message.",
  },
  feedback: {
    ...nullable(messageFeedbackSchema),
    description: "A model reply's rating by the visitor (the latest; rating again replaces it); null until rated, and for every other message.",
  },
});

/** A conversation as lists show it. */
const conversationSchema = record({
  id: uuid,
  chatbot_id: uuid,
  session_id: { type: "string" },
  human_takeover: { type: "boolean" },
  needs_attention: { type: "boolean", description: "The latest reply was the fallback message, or the provider failed on the latest user message." },
  attention_reason: {
    ...nullable({ type: "string", enum: ["fallback", "provider_failed"] }),
    description: "Why it needs attention: `fallback` (the latest reply is the fallback message) or `provider_failed`; null when it does not.",
  },
  message_count: count,
  unread_count: { ...count, description: "The visitor messages after the last one the calling key marked read (`POST .../read`)." },
  last_message: {
    ...nullable(
      record({
        author: { type: "string", enum: [...AUTHORS] },
        agent_name: nullable({ type: "string" }),
        content: { type: "string", description: "The first 200 characters." },
        created_at: timestamp,
      }),
    ),
    description: "null for a conversation with no message yet (taken over before the visitor wrote).",
  },
  events: {
    type: "array",
    description: "The takeover timeline, oldest first: who (the key's name; null from the CLI) took the conversation over or handed it back, and when.",
    items: record({ type: { type: "string", enum: ["takeover_started", "takeover_ended"] }, by: nullable({ type: "string" }), at: timestamp }),
  },
  created_at: timestamp,
  updated_at: { ...timestamp, description: "The last activity: a message or a takeover change." },
});

/** A conversation with its messages, oldest first. */
const conversationWithMessagesSchema = record({ ...conversationSchema.properties, messages: { type: "array", items: messageSchema } });

/** A document of a chatbot's knowledge. */
const documentSchema = record({
  id: uuid,
  title: { type: "string" },
  source: { type: "string", description: "Where it came from (for text: its title); adding the same source again replaces the document." },
  type: { type: "string", description: "`text` for text sent as JSON; `markdown`, `html` (and later `pdf`, `docx`) for files." },
  chunks: count,
  bytes: { ...count, description: "Size of the text, in UTF-8 bytes." },
  created_at: timestamp,
  updated_at: timestamp,
});

/** An ingestion's progress and outcome. */
const ingestionSchema = record({
  id: uuid,
  chatbot_id: uuid,
  status: { type: "string", enum: ["queued", "running", "succeeded", "failed"] },
  documents_total: { ...nullable(count), description: "null until known." },
  documents_done: count,
  chunks: count,
  errors: { type: "array", items: record({ source: { type: "string" }, detail: { type: "string" } }) },
  created_at: timestamp,
  finished_at: nullable(timestamp),
});

/** The retrieval test's answer. */
const searchResultSchema = record({
  data: {
    type: "array",
    description: "Best first.",
    items: record({
      document_id: nullable(uuid),
      title: { type: "string" },
      source: { type: "string" },
      text: { type: "string" },
      score: { type: "number", description: "The fused score." },
      keyword_rank: { ...nullable({ type: "integer", minimum: 1 }), description: "Rank in the keyword (BM25) arm; null when that arm did not find the chunk." },
      vector_rank: { ...nullable({ type: "integer", minimum: 1 }), description: "Rank in the vector arm; null when that arm did not find the chunk." },
    }),
  },
});

/** An API key, never its secret. */
const keySchema = record({
  id: uuid,
  name: { type: "string" },
  scope: { type: "string", enum: [...API_KEY_SCOPES] },
  current: { type: "boolean", description: "True for the key making this call: revoking it signs the caller out." },
  created_at: timestamp,
  last_used_at: nullable(timestamp),
  revoked_at: nullable(timestamp),
});

/** A new key: the key itself, this once. */
const keyWithSecretSchema = record({ ...keySchema.properties, key: { type: "string", pattern: "^prl_[A-Za-z0-9_-]{43}$", description: "Shown this once." } });

/** A webhook subscription, never its secret. */
const webhookSchema = record({
  id: uuid,
  url: { type: "string" },
  chatbot_id: nullable(uuid),
  events: { type: "array", items: { type: "string", enum: [...EVENT_TYPES] }, description: "Empty: every type." },
  created_at: timestamp,
});

/** A new subscription: its signing secret, this once. */
const webhookWithSecretSchema = record({ ...webhookSchema.properties, secret: { type: "string", pattern: "^whsec_", description: "Shown this once." } });

/** One delivery of one event to one subscription. */
const deliverySchema = record({
  id: uuid,
  webhook_id: uuid,
  event_id: uuid,
  event_type: { type: "string", enum: [...EVENT_TYPES] },
  status: { type: "string", enum: [...DELIVERY_STATUSES] },
  attempts: count,
  last_status: { ...nullable({ type: "integer" }), description: "The HTTP status of the last attempt; null before one, or when it got no answer." },
  next_attempt_at: nullable(timestamp),
  created_at: timestamp,
});

/** This month's usage. */
const usageSchema = record({
  plan: { type: "string" },
  limit: count,
  used: count,
  remaining: count,
  month: { type: "string", pattern: "^\\d{4}-\\d{2}$" },
  resets_at: timestamp,
  by_chatbot: { type: "array", items: record({ chatbot_id: uuid, messages: count }) },
  by_day: { type: "array", items: record({ date: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" }, messages: count }) },
  feedback_by_chatbot: {
    type: "array",
    items: record({ chatbot_id: uuid, up: count, down: count }),
    description: "Per chatbot (ascending id; only those with any), the model replies rated this month, by their latest rating.",
  },
});

/** The session messages route's answer (docs/design.md §10). */
const sessionMessagesSchema = record({ data: { type: "array", items: messageSchema } });

/** The operator API's views, by component name. */
export const operatorViews = {
  AdminChatbot: adminChatbotSchema,
  WidgetSecret: widgetSecretSchema,
  AdminChatbotPage: pageOf(adminChatbotSchema, "The caller's chatbots, newest first."),
  Document: documentSchema,
  DocumentPage: pageOf(documentSchema, "The chatbot's documents, most recently updated first."),
  Ingestion: ingestionSchema,
  SearchResult: searchResultSchema,
  Conversation: conversationSchema,
  ConversationPage: pageOf(conversationSchema, "The caller's conversations, newest activity first."),
  ConversationWithMessages: conversationWithMessagesSchema,
  Message: messageSchema,
  MessageSource: messageSourceSchema,
  SessionMessages: sessionMessagesSchema,
  Key: keySchema,
  KeyWithSecret: keyWithSecretSchema,
  KeyPage: pageOf(keySchema, "The caller's keys, revoked ones too, newest first."),
  Webhook: webhookSchema,
  WebhookWithSecret: webhookWithSecretSchema,
  WebhookPage: pageOf(webhookSchema, "The caller's subscriptions, newest first."),
  Delivery: deliverySchema,
  DeliveryPage: pageOf(deliverySchema, "The deliveries of the caller's subscriptions, newest first."),
  Usage: usageSchema,
};
