import { get, post, remove } from "../api/client.js";
import type { ApiKey, Delivery, List, Scope, Usage, Webhook } from "../api/types.js";

export const listKeys = () => get<List<ApiKey>>("/keys", { limit: 100 });
/** Issues a key; the answer carries the secret this once. */
export const issueKey = (name: string, scope: Scope) => post<ApiKey & { key: string }>("/keys", { name, scope });
export const revokeKey = (id: string) => remove(`/keys/${encodeURIComponent(id)}`);

export const listWebhooks = () => get<List<Webhook>>("/webhooks", { limit: 100 });
/** Subscribes a URL; the answer carries the signing secret this once. */
export const addWebhook = (url: string, chatbotId: string) => post<Webhook & { secret: string }>("/webhooks", { url, ...(chatbotId ? { chatbot_id: chatbotId } : {}) });
export const removeWebhook = (id: string) => remove(`/webhooks/${encodeURIComponent(id)}`);
export const listDeliveries = (status: string) => get<List<Delivery>>("/webhook-deliveries", { status, limit: 50 });
export const retryDelivery = (id: string) => post<Delivery>(`/webhook-deliveries/${encodeURIComponent(id)}/retry`);

export const getUsage = () => get<Usage>("/usage");
