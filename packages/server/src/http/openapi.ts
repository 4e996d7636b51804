import { DEFAULT_SETTINGS, MAX_MESSAGE_CHARS, MAX_SESSION_ID_CHARS } from "@parley/core";
import {
  ADMITTED,
  chatResponses,
  details,
  headers,
  jsonResponse,
  parameters,
  ref,
  REQUEST_ID,
  responses,
  schemas,
} from "./openapi-components.js";
import { adminComponents, adminPaths, adminTags } from "./openapi-admin.js";

const DESCRIPTION = `The HTTP API of a Parley server: send a message to a chatbot and get one JSON reply, list the caller's chatbots, read one, read a session's messages; and the operator API under \`/v1/admin\` (chatbots, knowledge, conversations and takeover, keys, webhooks, usage, live events) for keys with the \`admin\` scope.

Every route but \`/healthz\` takes \`Authorization: Bearer <API key>\`. Every response is JSON (\`content-type: application/json; charset=utf-8\`) and every error body is \`{"detail": string}\`, with no machine-readable code: the status and the exact detail text are the contract.

Checks run in this order: 401 (key) → 429 (per-key rate limit) → 400/413/415/422 (body) → 404 (chatbot) → 403 (paused) → 429 (monthly quota) → 429 (conversation rate limit) → the pipeline.

Operator API (\`/v1/admin/...\`): 401 (key) → 429 (per-key rate limit: ${DEFAULT_SETTINGS.adminKeyRequestsPerMinute} a minute for an admin key, \`PARLEY_ADMIN_KEY_RATE_LIMIT\`) → 403 for a key without the admin scope, before any body is read → 400/413/415/422 (body) → 404 (a missing, foreign or malformed id) → 422 (a rule of the core). Lists answer \`{"data": [...], "next_cursor": string|null}\` with \`?limit=\` (1–100, default 50) and an opaque \`?cursor=\`; creating answers 201, deleting 204 with no body.

Limits: request body ${1024 * 1024} bytes (1 MiB); \`message\` 1–${MAX_MESSAGE_CHARS} characters after trimming; \`session_id\` 1–${MAX_SESSION_ID_CHARS} characters; ${DEFAULT_SETTINGS.keyRequestsPerMinute} requests per key and ${DEFAULT_SETTINGS.conversationMessagesPerMinute} messages per conversation in any 60 seconds by default (the 429 texts quote the configured numbers).

Any other path answers 404 \`${details.routeNotFound}\`; a known path with another method answers 405 \`${details.methodNotAllowed}\` with an \`Allow\` header. Neither needs a key.

Generated from the JSON Schemas the server validates with (packages/server/src/http/schemas.ts, admin-schemas.ts) and answers with (admin-response-schemas.ts, event-schemas.ts) by \`npm run openapi\`; a test fails when this file and the code drift apart. Guide: docs/api.md.`;

const chatOperation = {
  operationId: "sendChatMessage",
  summary: "Send a message to a chatbot and get its reply",
  description: `The retrieval-augmented pipeline: quota and conversation rate, find or create the conversation of (chatbot_id, session_id), store the message, retrieve context (BM25 + vectors fused by Reciprocal Rank Fusion), build the prompt with the conversation's last ${DEFAULT_SETTINGS.historyTurns} messages, call the chatbot's model, store and return the reply. Every accepted message counts toward the plan's monthly quota. Fires \`conversation.started\` (new conversation) and \`message.received\` webhooks. The reply carries no conversation id: the conversation is identified by \`session_id\`.`,
  tags: ["chat"],
  parameters: [ref("parameters", "ChatbotId"), ref("parameters", "RequestId")],
  requestBody: {
    required: true,
    description: `At most 1 MiB, \`Content-Type: application/json\`. Unknown fields are ignored. \`message\` is trimmed before its length is checked. Without \`session_id\`, all calls of one user, with any of its keys, share the conversation \`api-<user id>\`: send one \`session_id\` per end user.`,
    content: {
      "application/json": {
        schema: ref("schemas", "ChatRequest"),
        examples: { question: { summary: "A question in a session", value: { message: "How long is the warranty?", session_id: "visitor-42" } } },
      },
    },
  },
  responses: {
    "200": jsonResponse("The chatbot's reply. A blank model reply is replaced by the chatbot's `fallback_message`.", "ChatResponse", ADMITTED, {
      reply: { summary: "A reply", value: { response: "The kettle comes with a 2-year limited warranty." } },
    }),
    "202": jsonResponse(
      "A human agent has taken over the conversation: the message is stored, counts toward the quota and fires its events; the model is not called and the reply is empty.",
      "ChatResponse",
      ADMITTED,
      { takeover: { summary: "Human takeover", value: { response: "" } } },
    ),
    "400": chatResponses["400"],
    "401": ref("responses", "Unauthorized"),
    "403": chatResponses["403"],
    "404": ref("responses", "ChatbotNotFound"),
    "413": chatResponses["413"],
    "415": chatResponses["415"],
    "422": chatResponses["422"],
    "429": chatResponses["429"],
    "500": chatResponses["500"],
  },
};

const listOperation = {
  operationId: "listChatbots",
  summary: "List the caller's chatbots",
  description: "A bare JSON array (no envelope) of the chatbots owned by the key's user, in list form, newest first (`created_at` descending, ties by id). Soft-deleted chatbots are left out; paused ones are listed with `is_active: false`.",
  tags: ["chatbots"],
  parameters: [ref("parameters", "RequestId")],
  responses: {
    "200": jsonResponse("The caller's chatbots.", "ChatbotList", ADMITTED, {
      chatbots: {
        summary: "One chatbot",
        value: [{ id: "3f0c9a55-2b7e-4c1d-9e8a-6d5b4c3a2f10", name: "Kettle Help", slug: "kettle-help", provider: "openai", is_active: true, created_at: "2025-06-12T09:30:00.123456+00:00" }],
      },
    }),
    "401": ref("responses", "Unauthorized"),
    "429": ref("responses", "KeyRateLimited"),
    "500": ref("responses", "InternalError"),
  },
};

const detailOperation = {
  operationId: "getChatbot",
  summary: "Read one of the caller's chatbots",
  description: "The chatbot in detail form: the list fields plus `system_prompt` and `fallback_message`.",
  tags: ["chatbots"],
  parameters: [ref("parameters", "ChatbotId"), ref("parameters", "RequestId")],
  responses: {
    "200": jsonResponse("The chatbot.", "ChatbotDetail", ADMITTED, {
      chatbot: {
        summary: "A chatbot",
        value: {
          id: "3f0c9a55-2b7e-4c1d-9e8a-6d5b4c3a2f10",
          name: "Kettle Help",
          slug: "kettle-help",
          provider: "openai",
          is_active: true,
          created_at: "2025-06-12T09:30:00.123456+00:00",
          system_prompt: "You help owners of the Kettlebird One smart kettle.",
          fallback_message: "Sorry, I can't answer that right now.",
        },
      },
    }),
    "401": ref("responses", "Unauthorized"),
    "404": ref("responses", "ChatbotNotFound"),
    "429": ref("responses", "KeyRateLimited"),
    "500": ref("responses", "InternalError"),
  },
};

const healthOperation = {
  operationId: "getHealth",
  summary: "Liveness check",
  description: "Answers while the server accepts requests. Needs no key; not rate limited.",
  tags: ["operations"],
  security: [],
  responses: { "200": jsonResponse("The server is up.", "Health", REQUEST_ID, { ok: { summary: "Up", value: { status: "ok" } } }) },
};

/** The OpenAPI 3.1 document of the API, built from the schemas the server validates with. Written to `docs/openapi.json` by `npm run openapi`. */
export function buildOpenApiDocument() {
  return {
    openapi: "3.1.0",
    info: { title: "Parley API", version: "1.0.0", summary: "Retrieval-augmented chatbot messaging", description: DESCRIPTION, license: { name: "MIT", identifier: "MIT" } },
    servers: [{ url: "http://127.0.0.1:8787", description: "`parley serve` / `npm start` default" }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: "chat", description: "Messages and replies" },
      { name: "chatbots", description: "Read-only access to the caller's chatbots (any key)" },
      { name: "operations", description: "For load balancers and monitors" },
      ...adminTags,
    ],
    paths: {
      "/v1/chatbots/{chatbot_id}/chat": { post: chatOperation },
      "/v1/chatbots": { get: listOperation },
      "/v1/chatbots/{chatbot_id}": { get: detailOperation },
      "/healthz": { get: healthOperation },
      ...adminPaths,
    },
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "An API key (`prl_` followed by 43 base64url characters) from `parley key create`. Keys are shown once, stored as hashes, revoked at once.",
        },
      },
      schemas: { ...schemas, ...adminComponents.schemas },
      headers,
      parameters: { ...parameters, ...adminComponents.parameters },
      responses: { ...responses, ...adminComponents.responses },
    },
  };
}

/** The text of `docs/openapi.json`: the document, indented by two spaces, with a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
