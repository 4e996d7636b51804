import { api, unwrap } from "../api/client.js";
import type { Delivery, Scope } from "../api/types.js";

export const listKeys = () => unwrap(api.GET("/v1/admin/keys", { params: { query: { limit: 100 } } }));
/** Issues a key; the answer carries the secret this once. */
export const issueKey = (name: string, scope: Scope) => unwrap(api.POST("/v1/admin/keys", { body: { name, scope } }));
export const revokeKey = (id: string) => unwrap(api.DELETE("/v1/admin/keys/{key_id}", { params: { path: { key_id: id } } }));

export const listWebhooks = () => unwrap(api.GET("/v1/admin/webhooks", { params: { query: { limit: 100 } } }));
/** Subscribes a URL; the answer carries the signing secret this once. */
export const addWebhook = (url: string, chatbotId: string) => unwrap(api.POST("/v1/admin/webhooks", { body: { url, ...(chatbotId ? { chatbot_id: chatbotId } : {}) } }));
export const removeWebhook = (id: string) => unwrap(api.DELETE("/v1/admin/webhooks/{webhook_id}", { params: { path: { webhook_id: id } } }));
/** Deliveries, newest first; `status` "" for every status. */
export const listDeliveries = (status: Delivery["status"] | "") =>
  unwrap(api.GET("/v1/admin/webhook-deliveries", { params: { query: { limit: 50, ...(status ? { status } : {}) } } }));
export const retryDelivery = (id: string) => unwrap(api.POST("/v1/admin/webhook-deliveries/{delivery_id}/retry", { params: { path: { delivery_id: id } } }));

export const getUsage = () => unwrap(api.GET("/v1/admin/usage"));
