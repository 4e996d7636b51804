import { PROVIDERS } from "@parley/core";

// The answers of the spec's routes, as JSON Schemas (docs/design.md §4: exactly the fields of the
// spec's list and detail forms), and the small builders every view uses.

/** A timestamp as the API writes it: six fractional digits, offset `+00:00`. */
export const timestamp = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}\\+00:00$" } as const;
export const uuid = { type: "string", format: "uuid" } as const;
export const count = { type: "integer", minimum: 0 } as const;
export const nullable = <T extends object>(schema: T) => ({ oneOf: [schema, { type: "null" }] }) as const;

/** An object schema whose every property is required and no other is allowed. */
export const record = <P extends Record<string, object>>(properties: P, description?: string) =>
  ({ type: "object", required: Object.keys(properties), properties, additionalProperties: false, ...(description ? { description } : {}) }) as const;

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
    id: uuid,
    name: { type: "string" },
    slug: { type: "string" },
    provider: { type: "string", enum: [...PROVIDERS] },
    is_active: { type: "boolean" },
    created_at: timestamp,
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

/** The views of the spec's routes and `/healthz`, by component name. */
export const chatViews = {
  ChatResponse: chatResponseSchema,
  ChatbotSummary: chatbotSummarySchema,
  ChatbotDetail: chatbotDetailSchema,
  ChatbotList: { type: "array", items: { $ref: "#/components/schemas/ChatbotSummary" }, description: "The caller's chatbots, newest first; soft-deleted ones are left out." },
  Error: errorSchema,
  Health: { type: "object", required: ["status"], properties: { status: { type: "string", const: "ok" } }, additionalProperties: false },
};
