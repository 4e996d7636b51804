import { MAX_MESSAGE_CHARS, MAX_SESSION_ID_CHARS } from "@parley/core";
import { Ajv, type ErrorObject } from "ajv";
import { HttpError } from "./http-error.js";

/** The chat request body (the spec's table), as a JSON Schema. `docs/openapi.json` embeds it. */
export const chatRequestSchema = {
  type: "object",
  required: ["message"],
  properties: {
    message: { type: "string", minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "The user's message; surrounding whitespace is trimmed first." },
    session_id: {
      type: "string",
      minLength: 1,
      maxLength: MAX_SESSION_ID_CHARS,
      description: "Identifies the session so history carries across turns. Defaults to `api-<user id>`, one conversation for every call of the user (with any of its keys) that sends none: an integration serving several end users must send one per end user, or their histories mix.",
    },
  },
} as const;

/** The chat response body. */
export const chatResponseSchema = {
  type: "object",
  required: ["response"],
  properties: { response: { type: "string", description: "The chatbot's reply; empty while a human agent has taken over." } },
  additionalProperties: false,
} as const;

/** The list form of a chatbot. */
export const chatbotSummarySchema = {
  type: "object",
  required: ["id", "name", "slug", "provider", "is_active", "created_at"],
  properties: {
    id: { type: "string", format: "uuid" },
    name: { type: "string" },
    slug: { type: "string" },
    provider: { type: "string", enum: ["openai", "anthropic", "ollama"] },
    is_active: { type: "boolean" },
    created_at: { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}\\+00:00$" },
  },
  additionalProperties: false,
} as const;

/** The detail form of a chatbot. */
export const chatbotDetailSchema = {
  type: "object",
  required: [...chatbotSummarySchema.required, "system_prompt", "fallback_message"],
  properties: { ...chatbotSummarySchema.properties, system_prompt: { type: "string" }, fallback_message: { type: "string" } },
  additionalProperties: false,
} as const;

/** Every error body. */
export const errorSchema = {
  type: "object",
  required: ["detail"],
  properties: { detail: { type: "string" } },
  additionalProperties: false,
} as const;

const ajv = new Ajv({ allErrors: false, strict: true });
ajv.addFormat("uuid", /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
const validateChatRequest = ajv.compile(chatRequestSchema);

/** The validators of the response schemas, for tests that keep the OpenAPI document honest. */
export const responseValidators = {
  chat: ajv.compile(chatResponseSchema),
  summary: ajv.compile(chatbotSummarySchema),
  detail: ajv.compile(chatbotDetailSchema),
  error: ajv.compile(errorSchema),
};

function describe(error: ErrorObject): string {
  if (error.instancePath === "" && error.keyword === "type") return "body: must be a JSON object";
  const field = error.keyword === "required" ? String(error.params.missingProperty) : error.instancePath.slice(1);
  if (error.keyword === "maxLength") return `${field}: must be at most ${String(error.params.limit)} characters`;
  return `${field}: must be a non-empty string`;
}

/** Checks a chat body against the schema (after trimming the message); 422 naming the field otherwise. */
export function checkChatRequest(body: unknown): void {
  const normalized =
    typeof body === "object" && body !== null && !Array.isArray(body) && typeof (body as { message?: unknown }).message === "string"
      ? { ...body, message: (body as { message: string }).message.trim() }
      : body;
  if (!validateChatRequest(normalized)) throw new HttpError(422, describe(validateChatRequest.errors![0]!));
}
