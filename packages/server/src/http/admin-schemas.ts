import { API_KEY_SCOPES, CHATBOT_TEXT_LIMITS, EVENT_TYPES, MAX_MESSAGE_CHARS, MAX_SEARCH_RESULTS, PROVIDERS } from "@parley/core";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { HttpError } from "./http-error.js";

// One JSON Schema per operator API body (docs/design.md §9): the server validates with these,
// and docs/openapi.json is generated from them. Unknown fields are ignored, as on chat.

const text = (maxLength: number, description: string) => ({ type: "string", minLength: 1, maxLength, description }) as const;

/** `POST /v1/admin/chatbots`. */
export const createChatbotSchema = {
  type: "object",
  required: ["name", "provider", "model"],
  properties: {
    name: text(CHATBOT_TEXT_LIMITS.name, "Display name; the slug is derived from it once, at creation."),
    provider: { type: "string", enum: [...PROVIDERS], description: "The LLM backend: `ollama` is the locally hosted one." },
    model: text(CHATBOT_TEXT_LIMITS.model, "The model name passed to the provider, e.g. `gpt-4o-mini`."),
    system_prompt: { type: "string", maxLength: CHATBOT_TEXT_LIMITS.systemPrompt, description: "The persona; may be empty." },
    fallback_message: text(CHATBOT_TEXT_LIMITS.fallbackMessage, "The reply when the model returns a blank one."),
  },
} as const;

/** `PATCH /v1/admin/chatbots/{id}`: any of the settings, at least one. */
export const updateChatbotSchema = {
  type: "object",
  minProperties: 1,
  properties: { ...createChatbotSchema.properties, is_active: { type: "boolean", description: "false pauses the chatbot: chat answers 403." } },
} as const;

/** `POST /v1/admin/chatbots/{id}/documents` with JSON: a text document, or a URL to read. */
export const addDocumentsSchema = {
  type: "object",
  properties: {
    title: text(500, "The document's title, which is also its source: adding the same title again replaces it."),
    text: { type: "string", minLength: 1, maxLength: 1_000_000, description: "The document's text." },
    url: { type: "string", minLength: 1, maxLength: 2048, description: "A public http(s) URL to read." },
    crawl: { type: "string", enum: ["page", "sitemap", "site"], description: "`page` (default): the URL alone; `sitemap`: every page it lists; `site`: same-site links, breadth-first." },
    max_pages: { type: "integer", minimum: 1, maximum: 1000, description: "Pages read at most (default 50)." },
  },
} as const;

/** `POST /v1/admin/chatbots/{id}/search`. */
export const searchSchema = {
  type: "object",
  required: ["query"],
  properties: {
    query: text(MAX_MESSAGE_CHARS, "A question, as a visitor would ask it."),
    limit: { type: "integer", minimum: 1, maximum: MAX_SEARCH_RESULTS, description: "Chunks returned at most (default: as many as the prompt gets, 5)." },
  },
} as const;

/** `POST /v1/admin/conversations/{id}/messages`. */
export const replySchema = {
  type: "object",
  required: ["content"],
  properties: { content: text(MAX_MESSAGE_CHARS, "The agent's reply; surrounding whitespace is trimmed.") },
} as const;

/** `POST /v1/admin/keys`. */
export const createKeySchema = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 200, description: "A label for the key (default `default`)." },
    scope: { type: "string", enum: [...API_KEY_SCOPES], description: "`chat` (default): the three spec routes; `admin`: the operator API too." },
  },
} as const;

/** `POST /v1/admin/webhooks`. */
export const createWebhookSchema = {
  type: "object",
  required: ["url"],
  properties: {
    url: { type: "string", minLength: 1, maxLength: 2048, description: "An http(s) URL at a public address." },
    chatbot_id: { type: "string", description: "Only this chatbot's events." },
    events: { type: "array", items: { type: "string", enum: [...EVENT_TYPES] }, maxItems: EVENT_TYPES.length * 2, description: "Only these event types; absent or empty: every type." },
  },
} as const;

const ajv = new Ajv({ allErrors: false, strict: true });

/** A validator that answers 422 naming the field and the problem, as the chat body does. */
function checker<Body>(schema: object): (body: unknown) => Body {
  const validate: ValidateFunction = ajv.compile(schema);
  return (body) => {
    if (!validate(body)) throw new HttpError(422, describeError(validate.errors![0]!));
    return body as Body;
  };
}

/** The 422 detail of a schema error: `field: problem`. */
export function describeError(error: ErrorObject): string {
  const path = error.instancePath.slice(1).replaceAll("/", ".");
  if (error.keyword === "required") return `${String(error.params.missingProperty)}: is required`;
  if (path === "" && error.keyword === "type") return "body: must be a JSON object";
  if (path === "" && error.keyword === "minProperties") return "body: must hold at least one field to change";
  const params = error.params as { limit?: number; type?: string; allowedValues?: unknown[] };
  switch (error.keyword) {
    case "type":
      return `${path}: must be ${params.type === "integer" ? "a whole number" : `a${params.type === "array" || params.type === "object" ? "n" : ""} ${params.type}`}`;
    case "enum":
      return `${path}: must be one of ${params.allowedValues!.join(", ")}`;
    case "minLength":
      return `${path}: must be a non-empty string`;
    case "maxLength":
      return `${path}: must be at most ${params.limit} characters`;
    case "minimum":
      return `${path}: must be at least ${params.limit}`;
    case "maximum":
      return `${path}: must be at most ${params.limit}`;
    case "maxItems":
      return `${path}: must hold at most ${params.limit} items`;
    default:
      return `${path || "body"}: is not valid`;
  }
}

export const checkCreateChatbot = checker<{ name: string; provider: string; model: string; system_prompt?: string; fallback_message?: string }>(createChatbotSchema);
export const checkUpdateChatbot = checker<{ name?: string; provider?: string; model?: string; system_prompt?: string; fallback_message?: string; is_active?: boolean }>(updateChatbotSchema);
export const checkAddDocuments = checker<{ title?: string; text?: string; url?: string; crawl?: "page" | "sitemap" | "site"; max_pages?: number }>(addDocumentsSchema);
export const checkSearch = checker<{ query: string; limit?: number }>(searchSchema);
export const checkReply = checker<{ content: string }>(replySchema);
export const checkCreateKey = checker<{ name?: string; scope?: string }>(createKeySchema);
export const checkCreateWebhook = checker<{ url: string; chatbot_id?: string; events?: string[] }>(createWebhookSchema);
