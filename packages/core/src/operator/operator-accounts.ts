import { DELIVERY_STATUSES } from "../domain/webhook.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import { createApiKey, revokeApiKey } from "../admin/accounts.js";
import { assertUrl, createWebhookSubscription } from "../admin/webhooks.js";
import { isUuid } from "../support/ids.js";
import { formatTimestamp, monthOf, startOfNextMonth } from "../support/time.js";
import { decodeCursor, encodeCursor, pageOf, pageOfAll, pageSize, type PageRequest } from "./pages.js";
import { toDeliveryView, toKeyView, toWebhookView } from "./views.js";

/** The caller's keys (revoked ones too), newest first; never a secret. */
export async function listKeys(dependencies: Dependencies, caller: Caller, page: PageRequest) {
  return pageOfAll("keys", await dependencies.storage.listApiKeys(caller.user.id), page, (key) => toKeyView(key, caller.apiKey.id));
}

/** Issues a key for the caller; the key itself is in this answer only. */
export async function issueKey(dependencies: Dependencies, caller: Caller, input: { name?: string; scope?: string }) {
  const { apiKey, key } = await createApiKey(dependencies, { userId: caller.user.id, name: input.name, scope: input.scope });
  return { ...toKeyView(apiKey, caller.apiKey.id), key };
}

/** Revokes one of the caller's keys at once (the caller's own included). */
export async function revokeKey(dependencies: Dependencies, caller: Caller, keyId: string): Promise<void> {
  const key = isUuid(keyId) ? await dependencies.storage.getApiKey(keyId.toLowerCase()) : null;
  if (!key || key.userId !== caller.user.id) throw notFound("API key");
  await revokeApiKey(dependencies, key.id);
}

/** The caller's webhook subscriptions, newest first. */
export async function listWebhooks(dependencies: Dependencies, caller: Caller, page: PageRequest) {
  const subscriptions = (await dependencies.storage.listWebhookSubscriptions(caller.user.id)).reverse();
  return pageOfAll("webhooks", subscriptions, page, toWebhookView);
}

/** Subscribes a URL of the caller's to events; the URL must be public (unless the server allows private ones). */
export async function addWebhook(dependencies: Dependencies, caller: Caller, input: { url: string; chatbot_id?: string; events?: string[] }) {
  assertUrl(input.url);
  await dependencies.checkWebhookUrl?.(input.url);
  const created = await createWebhookSubscription(dependencies, { userId: caller.user.id, url: input.url, chatbotId: input.chatbot_id, eventTypes: input.events, publicOnly: true });
  return { ...toWebhookView(created), secret: created.secret };
}

/** Removes one of the caller's subscriptions; its pending deliveries fail and stay listed. */
export async function removeWebhook(dependencies: Dependencies, caller: Caller, webhookId: string): Promise<void> {
  const owned = isUuid(webhookId) && (await dependencies.storage.listWebhookSubscriptions(caller.user.id)).some((subscription) => subscription.id === webhookId.toLowerCase());
  if (!owned || !(await dependencies.storage.deleteWebhookSubscription(webhookId.toLowerCase()))) throw notFound("Webhook");
}

/** The deliveries of the caller's subscriptions, newest first, optionally of one status. */
export async function listDeliveries(dependencies: Dependencies, caller: Caller, query: PageRequest & { status?: unknown }) {
  if (query.status !== undefined && !(DELIVERY_STATUSES as readonly unknown[]).includes(query.status)) {
    throw invalidRequest(`status: must be one of ${DELIVERY_STATUSES.join(", ")}`);
  }
  const size = pageSize(query);
  const after = decodeCursor("deliveries", query.cursor, ["string"]);
  const rows = await dependencies.storage.listDeliveries({
    userId: caller.user.id,
    status: query.status as (typeof DELIVERY_STATUSES)[number] | undefined,
    limit: size + 1,
    afterId: after?.[0] as string | undefined,
  });
  return pageOf(rows, size, toDeliveryView, (delivery) => encodeCursor("deliveries", [delivery.id]));
}

/** Sends one of the caller's deliveries again now. */
export async function retryDelivery(dependencies: Dependencies, caller: Caller, deliveryId: string) {
  const delivery = isUuid(deliveryId) ? await dependencies.storage.getDelivery(deliveryId.toLowerCase()) : null;
  if (!delivery || delivery.userId !== caller.user.id) throw notFound("Delivery");
  // A delivery whose subscription was removed cannot be sent again: the same 404, without the id.
  const retried = await dependencies.storage.retryDelivery(delivery.id, dependencies.clock.now());
  if (!retried) throw notFound("Delivery");
  return toDeliveryView(retried);
}

/** This month's usage of the caller: the plan's limit, what is used and left, per chatbot and per day. */
export async function getUsage(dependencies: Dependencies, caller: Caller) {
  const now = dependencies.clock.now();
  const month = monthOf(now);
  const plan = (await dependencies.storage.getPlan(caller.user.planName)) ?? dependencies.settings.defaultPlan;
  const limit = caller.user.monthlyMessagesOverride ?? plan.monthlyMessages;
  const used = await dependencies.storage.getMonthlyUsage(caller.user.id, month);
  const from = Date.parse(`${month}-01T00:00:00Z`) * 1000;
  const resetsAt = startOfNextMonth(now);
  const [breakdown, feedback] = await Promise.all([
    dependencies.storage.getUsageBreakdown(caller.user.id, { from, to: resetsAt }),
    dependencies.storage.countFeedback(caller.user.id, { from, to: resetsAt }),
  ]);
  return {
    plan: plan.name,
    limit,
    used,
    remaining: Math.max(0, limit - used),
    month,
    resets_at: formatTimestamp(resetsAt),
    by_chatbot: breakdown.byChatbot.map(({ chatbotId, messages }) => ({ chatbot_id: chatbotId, messages })),
    by_day: breakdown.byDay,
    feedback_by_chatbot: feedback.map(({ chatbotId, up, down }) => ({ chatbot_id: chatbotId, up, down })),
  };
}
