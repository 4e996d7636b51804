import { DELIVERY_STATUSES, EVENT_TYPES } from "@parley/core";
import { created, defineEndpoint, key, noContent, ok, type Tag } from "../endpoint.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";

// The operator API's webhook subscriptions and their deliveries (docs/design.md §5, §9).

const TAG: Tag = { name: "admin: webhooks", description: "Subscriptions and deliveries (admin keys)" };

export const listWebhooks = defineEndpoint({
  method: "GET",
  path: "/v1/admin/webhooks",
  operationId: "listWebhooks",
  summary: "List the caller's webhook subscriptions",
  description: "Newest first; never a signing secret.",
  tag: TAG,
  access: key("admin"),
  parameters: ["Limit", "Cursor"],
  success: { status: 200, description: "A page of subscriptions.", schema: "WebhookPage" },
  invalid: PAGE_ERRORS,
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listWebhooks(caller, query)),
});

export const createWebhook = defineEndpoint({
  method: "POST",
  path: "/v1/admin/webhooks",
  operationId: "createWebhook",
  summary: "Subscribe a URL to events",
  description:
    "The URL must be an absolute `http` or `https` URL. `chatbot_id` narrows the subscription to one of the caller's chatbots, `events` to some event types (absent or empty: every type). The signing secret (`whsec_…`) is in this answer only.",
  tag: TAG,
  access: key("admin"),
  body: {
    name: "CreateWebhookRequest",
    schema: {
      type: "object",
      required: ["url"],
      properties: {
        url: { type: "string", minLength: 1, maxLength: 2048, description: "An http(s) URL at a public address." },
        chatbot_id: { type: "string", description: "Only this chatbot's events." },
        events: { type: "array", items: { type: "string", enum: EVENT_TYPES }, maxItems: EVENT_TYPES.length * 2, description: "Only these event types; absent or empty: every type." },
      },
    },
    examples: { example: { summary: "A body", value: { url: "https://example.com/parley-events", events: ["message.sent"] } } },
  },
  success: { status: 201, description: "The subscription, with its secret this once.", schema: "WebhookWithSecret" },
  notFound: [missing("Chatbot")],
  invalid: [
    ["missingUrl", "No url", { refused: {} }],
    ["badUrl", "Not an absolute http(s) URL", "url: must be an absolute http or https URL"],
    ["badEvent", "An unknown event type", { refused: { url: "https://example.com", events: ["message.deleted"] } }],
  ],
  handle: async ({ parley, caller, body }) => created(await parley.operator.createWebhook(caller, body)),
});

export const deleteWebhook = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/webhooks/{webhook_id}",
  operationId: "deleteWebhook",
  summary: "Remove a subscription",
  description: "No new deliveries are made to it; its pending deliveries fail and stay listed.",
  tag: TAG,
  access: key("admin"),
  success: { status: 204, description: "Removed; no body." },
  notFound: [missing("Webhook")],
  handle: ({ parley, caller, params }) => parley.operator.deleteWebhook(caller, params.webhook_id).then(noContent),
});

export const listDeliveries = defineEndpoint({
  method: "GET",
  path: "/v1/admin/webhook-deliveries",
  operationId: "listDeliveries",
  summary: "List deliveries",
  description: "The deliveries of the caller's subscriptions, newest first, optionally of one status.",
  tag: TAG,
  access: key("admin"),
  parameters: ["DeliveryStatus", "Limit", "Cursor"],
  success: { status: 200, description: "A page of deliveries.", schema: "DeliveryPage" },
  invalid: [...PAGE_ERRORS, ["badStatus", "An unknown status", `status: must be one of ${DELIVERY_STATUSES.join(", ")}`]],
  handle: async ({ parley, caller, query }) => ok(await parley.operator.listDeliveries(caller, query)),
});

export const retryDelivery = defineEndpoint({
  method: "POST",
  path: "/v1/admin/webhook-deliveries/{delivery_id}/retry",
  operationId: "retryDelivery",
  summary: "Send a delivery again now",
  description: "Makes the delivery due now; a failed or delivered one starts a new retry schedule. No body is read.",
  tag: TAG,
  access: key("admin"),
  success: { status: 200, description: "The delivery, due now.", schema: "Delivery" },
  notFound: [missing("Delivery")],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.retryDelivery(caller, params.delivery_id)),
});
