import { DELIVERY_STATUSES } from "@parley/core";
import { checkCreateKey, checkCreateWebhook } from "./admin-schemas.js";
import { adminOperation, detailOf, missing, PAGE_ERRORS } from "./openapi-admin-components.js";

// The operator API's keys, webhooks, deliveries and usage routes (docs/design.md §9), for docs/openapi.json.

/** The account routes of the operator API. */
export const accountPaths = {
  "/v1/admin/keys": {
    get: adminOperation({
      operationId: "listKeys",
      summary: "List the caller's API keys",
      description: "Every key of the caller's user, revoked ones too, newest first; never a key's secret.",
      tag: "admin: keys",
      parameters: ["Limit", "Cursor"],
      success: ["200", "A page of keys.", "KeyPage"],
      invalid: PAGE_ERRORS,
    }),
    post: adminOperation({
      operationId: "createKey",
      summary: "Issue an API key",
      description: "A new key for the caller's user; `key` is in this answer only (the server keeps a hash). Send `{}` for a `chat` key named `default`.",
      tag: "admin: keys",
      body: ["CreateKeyRequest", { name: "website widget", scope: "chat" }],
      success: ["201", "The key, with its secret this once.", "KeyWithSecret"],
      invalid: [
        ["badScope", "A scope other than chat or admin", detailOf(() => checkCreateKey({ scope: "owner" }))],
        ["longName", "A name over 200 characters", detailOf(() => checkCreateKey({ name: "n".repeat(201) }))],
      ],
    }),
  },
  "/v1/admin/keys/{key_id}": {
    delete: adminOperation({
      operationId: "revokeKey",
      summary: "Revoke an API key",
      description: "The key stops working at once (401), the caller's own included; it stays listed with `revoked_at`.",
      tag: "admin: keys",
      parameters: ["KeyId"],
      success: ["204", "Revoked; no body."],
      notFound: [missing("API key")],
    }),
  },
  "/v1/admin/webhooks": {
    get: adminOperation({
      operationId: "listWebhooks",
      summary: "List the caller's webhook subscriptions",
      description: "Newest first; never a signing secret.",
      tag: "admin: webhooks",
      parameters: ["Limit", "Cursor"],
      success: ["200", "A page of subscriptions.", "WebhookPage"],
      invalid: PAGE_ERRORS,
    }),
    post: adminOperation({
      operationId: "createWebhook",
      summary: "Subscribe a URL to events",
      description:
        "The URL must be an absolute `http` or `https` URL. `chatbot_id` narrows the subscription to one of the caller's chatbots, `events` to some event types (absent or empty: every type). The signing secret (`whsec_…`) is in this answer only.",
      tag: "admin: webhooks",
      body: ["CreateWebhookRequest", { url: "https://example.com/parley-events", events: ["message.sent"] }],
      success: ["201", "The subscription, with its secret this once.", "WebhookWithSecret"],
      notFound: [missing("Chatbot")],
      invalid: [
        ["missingUrl", "No url", detailOf(() => checkCreateWebhook({}))],
        ["badUrl", "Not an absolute http(s) URL", "url: must be an absolute http or https URL"],
        ["badEvent", "An unknown event type", detailOf(() => checkCreateWebhook({ url: "https://example.com", events: ["message.deleted"] }))],
      ],
    }),
  },
  "/v1/admin/webhooks/{webhook_id}": {
    delete: adminOperation({
      operationId: "deleteWebhook",
      summary: "Remove a subscription",
      description: "No new deliveries are made to it; its pending deliveries fail and stay listed.",
      tag: "admin: webhooks",
      parameters: ["WebhookId"],
      success: ["204", "Removed; no body."],
      notFound: [missing("Webhook")],
    }),
  },
  "/v1/admin/webhook-deliveries": {
    get: adminOperation({
      operationId: "listDeliveries",
      summary: "List deliveries",
      description: "The deliveries of the caller's subscriptions, newest first, optionally of one status.",
      tag: "admin: webhooks",
      parameters: ["DeliveryStatus", "Limit", "Cursor"],
      success: ["200", "A page of deliveries.", "DeliveryPage"],
      invalid: [...PAGE_ERRORS, ["badStatus", "An unknown status", `status: must be one of ${DELIVERY_STATUSES.join(", ")}`]],
    }),
  },
  "/v1/admin/webhook-deliveries/{delivery_id}/retry": {
    post: adminOperation({
      operationId: "retryDelivery",
      summary: "Send a delivery again now",
      description: "Makes the delivery due now; a failed or delivered one starts a new retry schedule. No body is read.",
      tag: "admin: webhooks",
      parameters: ["DeliveryId"],
      success: ["200", "The delivery, due now.", "Delivery"],
      notFound: [missing("Delivery")],
    }),
  },
  "/v1/admin/usage": {
    get: adminOperation({
      operationId: "getUsage",
      summary: "This month's usage",
      description: "The plan, its monthly message limit, what is used and left, when it resets (the next UTC month), messages per chatbot and per day of this month.",
      tag: "admin: usage",
      success: ["200", "The usage.", "Usage"],
    }),
  },
};
