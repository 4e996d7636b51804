import { addDocumentsSchema, createChatbotSchema, createKeySchema, createWebhookSchema, replySchema, searchSchema, updateChatbotSchema } from "./admin-schemas.js";
import { adminResponseSchemas } from "./admin-response-schemas.js";
import { eventBodySchema } from "./event-schemas.js";
import { accountPaths } from "./openapi-admin-accounts.js";
import { chatbotPaths } from "./openapi-admin-chatbots.js";
import { adminParameters, adminResponses } from "./openapi-admin-components.js";
import { conversationPaths } from "./openapi-admin-conversations.js";

// The operator API's part of docs/openapi.json (docs/design.md §9, §10).

/** Every operator route, and the session messages route for chat keys. */
export const adminPaths = { ...chatbotPaths, ...conversationPaths, ...accountPaths };

/** The request bodies: the very schema objects the server validates with (admin-schemas.ts). */
const requestSchemas = {
  CreateChatbotRequest: createChatbotSchema,
  UpdateChatbotRequest: updateChatbotSchema,
  AddDocumentRequest: addDocumentsSchema,
  SearchRequest: searchSchema,
  ReplyRequest: replySchema,
  CreateKeyRequest: createKeySchema,
  CreateWebhookRequest: createWebhookSchema,
};

/** The components the operator routes add to the document. */
export const adminComponents = {
  schemas: { ...requestSchemas, ...adminResponseSchemas, EventBody: eventBodySchema },
  parameters: adminParameters,
  responses: adminResponses,
};

/** The operator API's tags. */
export const adminTags = [
  { name: "admin: chatbots", description: "Create, change, pause and delete chatbots (admin keys)" },
  { name: "admin: knowledge", description: "Documents, ingestions and the retrieval test (admin keys)" },
  { name: "admin: conversations", description: "The inbox, takeover, agent replies and live events (admin keys)" },
  { name: "admin: keys", description: "API keys and their scopes (admin keys)" },
  { name: "admin: webhooks", description: "Subscriptions and deliveries (admin keys)" },
  { name: "admin: usage", description: "This month's messages against the plan (admin keys)" },
];
