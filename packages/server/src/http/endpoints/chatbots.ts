import { CHATBOT_TEXT_LIMITS, PROVIDERS } from "@parley/core";
import { created, defineEndpoint, key, noContent, ok, type Tag } from "../endpoint.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";
import { widgetSettingsProperties } from "../views-operator.js";

// The operator API's chatbot routes (docs/design.md §9).

const TAG: Tag = { name: "admin: chatbots", description: "Create, change, pause and delete chatbots (admin keys)" };

const text = (maxLength: number, description: string) => ({ type: "string", minLength: 1, maxLength, description }) as const;

/** The settings of a chatbot, as `POST` takes them and `PATCH` changes them. */
const settings = {
  name: text(CHATBOT_TEXT_LIMITS.name, "Display name; the slug is derived from it once, at creation."),
  provider: { type: "string", enum: PROVIDERS, description: "The LLM backend: `ollama` is the locally hosted one." },
  model: text(CHATBOT_TEXT_LIMITS.model, "The model name passed to the provider, e.g. `gpt-4o-mini`."),
  system_prompt: { type: "string", maxLength: CHATBOT_TEXT_LIMITS.systemPrompt, description: "The persona; may be empty." },
  fallback_message: text(CHATBOT_TEXT_LIMITS.fallbackMessage, "The reply when the model returns a blank one."),
} as const;

const example = { name: "Kettle Help", provider: "openai", model: "gpt-4o-mini", system_prompt: "You help owners of the Kettlebird One kettle." };
const CHATBOT = missing("Chatbot");

export const listAdminChatbots = defineEndpoint({
  method: "GET",
  path: "/v1/admin/chatbots",
  operationId: "listAdminChatbots",
  summary: "List the caller's chatbots (admin view)",
  description: "The caller's chatbots in the admin view, newest first, paused ones included, deleted ones left out. Agent keys may list them too, to name and filter the inbox.",
  tag: TAG,
  access: key("admin", "agent"),
  parameters: ["Limit", "Cursor"],
  success: { status: 200, description: "A page of chatbots.", schema: "AdminChatbotPage" },
  invalid: PAGE_ERRORS,
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listChatbots(caller, query)),
});

export const createChatbot = defineEndpoint({
  method: "POST",
  path: "/v1/admin/chatbots",
  operationId: "createChatbot",
  summary: "Create a chatbot",
  description: "Creates an active chatbot for the caller. The slug is derived from the name once, at creation. Without `system_prompt` or `fallback_message` the defaults apply.",
  tag: TAG,
  access: key("admin"),
  body: { name: "CreateChatbotRequest", schema: { type: "object", required: ["name", "provider", "model"], properties: settings }, examples: { example: { summary: "A body", value: example } } },
  success: { status: 201, description: "The new chatbot.", schema: "AdminChatbot" },
  invalid: [
    ["missingName", "A required field is missing", { refused: { provider: "openai", model: "m" } }],
    ["badProvider", "A provider other than the three", { refused: { ...example, provider: "cohere" } }],
    ["blankName", "A required text that is blank once trimmed", "name: must be a non-empty string"],
    ["longName", "A text over its limit", { refused: { ...example, name: "n".repeat(CHATBOT_TEXT_LIMITS.name + 1) } }],
  ],
  async handle({ parley, caller, body }) {
    const { name, provider, model, system_prompt: systemPrompt, fallback_message: fallbackMessage } = body;
    return created(await parley.operator.createChatbot(caller, { name, provider, model, systemPrompt, fallbackMessage }));
  },
});

export const getAdminChatbot = defineEndpoint({
  method: "GET",
  path: "/v1/admin/chatbots/{chatbot_id}",
  operationId: "getAdminChatbot",
  summary: "Read one chatbot (admin view)",
  description: "The spec's detail form plus `model`, `updated_at`, `documents` and `chunks`.",
  tag: TAG,
  access: key("admin"),
  success: { status: 200, description: "The chatbot.", schema: "AdminChatbot" },
  notFound: [CHATBOT],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.getChatbot(caller, params.chatbot_id)),
});

export const updateChatbot = defineEndpoint({
  method: "PATCH",
  path: "/v1/admin/chatbots/{chatbot_id}",
  operationId: "updateChatbot",
  summary: "Change a chatbot's settings, pause or resume it",
  description: "Any of the settings, at least one; the others stay. `is_active: false` pauses the chatbot (chat answers 403), `true` resumes it. The slug never changes.",
  tag: TAG,
  access: key("admin"),
  body: {
    name: "UpdateChatbotRequest",
    schema: {
      type: "object",
      minProperties: 1,
      properties: {
        ...settings,
        is_active: { type: "boolean", description: "false pauses the chatbot: chat answers 403." },
        widget: {
          type: "object",
          properties: widgetSettingsProperties,
          description: "Any part of the widget settings (docs/design.md §14); the fields left out stay as they were.",
        },
      },
    },
    examples: {
      example: { summary: "A body", value: { is_active: false } },
      widget: { summary: "Turn the widget on for one site", value: { widget: { enabled: true, allowed_origins: ["https://shop.example.com"], starter_questions: ["How do I descale it?"] } } },
    },
  },
  success: { status: 200, description: "The chatbot as changed.", schema: "AdminChatbot" },
  notFound: [CHATBOT],
  invalid: [
    ["empty", "No field to change", { refused: {} }],
    ["blankName", "A required text emptied", "name: must be a non-empty string"],
    ["badProvider", "A provider other than the three", { refused: { provider: "cohere" } }],
    ["badFlag", "`is_active` not a boolean", { refused: { is_active: "no" } }],
    ["badOrigin", "A widget origin with a path", "widget.allowed_origins.0: must be an origin written scheme://host[:port], such as https://example.com (http or https, lower case, no path, no wildcard, no trailing slash)"],
    ["badColor", "A widget colour not #rrggbb", "widget.accent_color: must be a colour written #rrggbb, e.g. #2563eb"],
  ],
  async handle({ parley, caller, params, body }) {
    const { name, provider, model, system_prompt: systemPrompt, fallback_message: fallbackMessage, is_active: isActive, widget } = body;
    return ok(await parley.operator.updateChatbot(caller, params.chatbot_id, { name, provider, model, systemPrompt, fallbackMessage, isActive, widget }));
  },
});

export const createWidgetSecret = defineEndpoint({
  method: "POST",
  path: "/v1/admin/chatbots/{chatbot_id}/widget-secret",
  operationId: "createWidgetSecret",
  summary: "Make a new widget identity secret",
  description:
    "Makes the chatbot's widget identity secret, replacing the old one (which stops verifying at once), and shows it this once: it is derived from the server's master key and a random nonce, never stored. A host site proves its signed-in user with `user_hash` = the lowercase hex HMAC-SHA256 of the `user_id` keyed with this secret (docs/design.md §14).",
  tag: TAG,
  access: key("admin"),
  success: { status: 201, description: "The new secret, shown once.", schema: "WidgetSecret" },
  notFound: [CHATBOT],
  handle: async ({ parley, caller, params }) => created(await parley.operator.createWidgetSecret(caller, params.chatbot_id)),
});

export const deleteChatbot = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/chatbots/{chatbot_id}",
  operationId: "deleteChatbot",
  summary: "Delete a chatbot",
  description: "A soft delete: the chatbot disappears from every route (404), its conversations with it; nothing is erased from the database.",
  tag: TAG,
  access: key("admin"),
  success: { status: 204, description: "Deleted; no body." },
  notFound: [CHATBOT],
  handle: ({ parley, caller, params }) => parley.operator.deleteChatbot(caller, params.chatbot_id).then(noContent),
});
