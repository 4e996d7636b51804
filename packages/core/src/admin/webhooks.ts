import { EVENT_TYPES, type EventType } from "../domain/events.js";
import { DELIVERY_STATUSES, type DeliveryStatus, type NewWebhookSubscription, type WebhookDelivery } from "../domain/webhook.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { findLiveChatbot } from "../chatbots/owned-chatbot.js";

/** What a subscription needs: the user, the URL, and optionally one chatbot and some event types. */
export interface CreateWebhookInput {
  userId: string;
  url: string;
  chatbotId?: string;
  eventTypes?: string[];
  /** Deliver only to public addresses (subscriptions made through the operator API). */
  publicOnly?: boolean;
}

/** Refuses anything but an absolute http or https URL. */
export function assertUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidRequest("url: must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidRequest("url: must be an absolute http or https URL");
}

/**
 * Subscribes a user's URL to events. The returned secret (`whsec_…`) signs every delivery; it
 * is derived from the master key, never stored, and returned only here.
 */
export async function createWebhookSubscription(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock" | "webhookSecrets">,
  input: CreateWebhookInput,
): Promise<NewWebhookSubscription> {
  assertUrl(input.url);
  if (!(await dependencies.storage.getUser(input.userId))) throw notFound(`User ${input.userId}`);
  const eventTypes = [...new Set(input.eventTypes ?? [])];
  const unknown = eventTypes.find((type) => !(EVENT_TYPES as readonly string[]).includes(type));
  if (unknown !== undefined) throw invalidRequest(`event: must be one of ${EVENT_TYPES.join(", ")}`);
  let chatbotId: string | null = null;
  if (input.chatbotId !== undefined) {
    const chatbot = await findLiveChatbot(dependencies, input.chatbotId);
    if (chatbot.ownerId !== input.userId) throw notFound("Chatbot");
    chatbotId = chatbot.id;
  }
  const id = dependencies.ids.uuid();
  const subscription = await dependencies.storage.createWebhookSubscription({
    id,
    userId: input.userId,
    url: input.url,
    chatbotId,
    eventTypes: eventTypes as EventType[],
    signingKeyId: dependencies.webhookSecrets.keyId(),
    publicOnly: input.publicOnly ?? false,
    createdAt: dependencies.clock.now(),
  });
  return { ...subscription, secret: dependencies.webhookSecrets.secretFor(id) };
}

/** Deliveries, newest first (default 100), optionally of one status; refuses an unknown status. */
export async function listWebhookDeliveries(
  dependencies: Pick<Dependencies, "storage">,
  options: { status?: string; limit?: number } = {},
): Promise<WebhookDelivery[]> {
  if (options.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(options.status)) {
    throw invalidRequest(`status: must be one of ${DELIVERY_STATUSES.join(", ")}`);
  }
  return dependencies.storage.listDeliveries({ limit: options.limit ?? 100, status: options.status as DeliveryStatus | undefined });
}

/** Makes a delivery due now (a failed or delivered one starts a new retry schedule); `not_found` otherwise. */
export async function retryWebhookDelivery(dependencies: Pick<Dependencies, "storage" | "clock">, deliveryId: string): Promise<WebhookDelivery> {
  const delivery = await dependencies.storage.retryDelivery(deliveryId, dependencies.clock.now());
  if (!delivery) throw notFound(`Delivery ${deliveryId}`);
  return delivery;
}
