import { formatTimestamp, notFound, type WebhookDelivery, type WebhookSecrets, type WebhookSubscription } from "@parley/core";
import { optional, required, wholeNumber, type Command } from "./command.js";

const text = { type: "string" } as const;
const time = (micros: number | null) => (micros === null ? null : formatTimestamp(micros));

/** A subscription as the CLI prints it; `events: []` means every event type. */
function subscriptionView(subscription: WebhookSubscription, keyId: string) {
  return {
    id: subscription.id,
    url: subscription.url,
    chatbot_id: subscription.chatbotId,
    events: subscription.eventTypes,
    created_at: formatTimestamp(subscription.createdAt),
    // False when this process's master key is not the one the secret came from: nothing is sent.
    signing_key_matches: keyId !== "" && subscription.signingKeyId === keyId,
  };
}

/** A delivery as the CLI prints it. */
export function deliveryView(delivery: WebhookDelivery) {
  return {
    id: delivery.id,
    subscription_id: delivery.subscriptionId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    attempts: delivery.attempts,
    next_attempt_at: time(delivery.nextAttemptAt),
    last_attempt_at: time(delivery.lastAttemptAt),
    last_response_status: delivery.lastResponseStatus,
    last_error: delivery.lastError,
    created_at: formatTimestamp(delivery.createdAt),
    delivered_at: time(delivery.deliveredAt),
  };
}

/** This process's key fingerprint, or "" when it has no key (then no subscription matches). */
function currentKeyId(secrets: WebhookSecrets): string {
  try {
    return secrets.keyId();
  } catch {
    return "";
  }
}

/** `webhook list`, `remove`, `deliveries` and `retry` (`webhook add` is with the other administration). */
export const WEBHOOK_COMMANDS: Command[] = [
  {
    name: "webhook list",
    usage: "parley webhook list --user USER_ID",
    summary: "List a user's webhook subscriptions, oldest first (secrets are never shown again).",
    options: { user: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const keyId = currentKeyId(runtime.webhookSecrets);
      const subscriptions = await runtime.parley.admin.listWebhookSubscriptions(required(input, "user"));
      return { webhooks: subscriptions.map((subscription) => subscriptionView(subscription, keyId)) };
    },
  },
  {
    name: "webhook remove",
    usage: "parley webhook remove WEBHOOK_ID",
    summary: "Remove a subscription; its pending deliveries are marked failed and kept.",
    options: {},
    positionals: { min: 1, max: 1 },
    async run(input, { runtime }) {
      const id = input.positionals[0]!;
      if (!(await runtime.parley.admin.removeWebhookSubscription(id))) throw notFound(`Webhook subscription ${id}`);
      return { id, removed: true };
    },
  },
  {
    name: "webhook deliveries",
    usage: "parley webhook deliveries [--status pending|delivered|failed] [--limit N]",
    summary: "List webhook deliveries, newest first (default 100).",
    options: { status: text, limit: text },
    positionals: { min: 0, max: 0 },
    async run(input, { runtime }) {
      const limit = optional(input, "limit");
      const deliveries = await runtime.parley.admin.listWebhookDeliveries({
        status: optional(input, "status"),
        limit: limit === undefined ? undefined : wholeNumber(limit, "limit"),
      });
      return { deliveries: deliveries.map(deliveryView) };
    },
  },
  {
    name: "webhook retry",
    usage: "parley webhook retry DELIVERY_ID",
    summary: "Send a delivery again as soon as the server's dispatcher runs (a failed one gets a new day of retries).",
    options: {},
    positionals: { min: 1, max: 1 },
    async run(input, { runtime }) {
      return deliveryView(await runtime.parley.admin.retryWebhookDelivery(input.positionals[0]!));
    },
  },
];
