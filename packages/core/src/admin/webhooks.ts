import { EVENT_TYPES, type EventType } from "../domain/events.js";
import type { WebhookSubscription } from "../domain/webhook.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { findLiveChatbot } from "./chatbot-admin.js";

/** What a subscription needs: the user, the URL, and optionally one chatbot and some event types. */
export interface CreateWebhookInput {
  userId: string;
  url: string;
  chatbotId?: string;
  eventTypes?: string[];
}

function assertUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidRequest("url: must be an absolute http or https URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidRequest("url: must be an absolute http or https URL");
}

/** Subscribes a user's URL to events. The returned secret (`whsec_…`) signs every delivery. */
export async function createWebhookSubscription(
  dependencies: Pick<Dependencies, "storage" | "ids" | "clock">,
  input: CreateWebhookInput,
): Promise<WebhookSubscription> {
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
  return dependencies.storage.createWebhookSubscription({
    id: dependencies.ids.uuid(),
    userId: input.userId,
    url: input.url,
    chatbotId,
    eventTypes: eventTypes as EventType[],
    secret: `whsec_${Buffer.from(dependencies.ids.secret(24), "base64url").toString("base64")}`,
    createdAt: dependencies.clock.now(),
  });
}
