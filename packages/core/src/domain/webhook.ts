import type { EventType } from "./events.js";

/** A user's subscription to events, optionally narrowed to one chatbot and some event types. */
export interface WebhookSubscription {
  id: string;
  userId: string;
  url: string;
  /** Only this chatbot's events, when set. */
  chatbotId: string | null;
  /** Only these event types; empty means every type. */
  eventTypes: EventType[];
  /** The signing secret, `whsec_<base64>`. Shown once at creation. */
  secret: string;
  createdAt: number;
}
