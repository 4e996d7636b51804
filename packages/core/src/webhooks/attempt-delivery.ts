import type { ClaimedDelivery } from "../domain/webhook.js";
import { isParleyError } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { Storage } from "../ports/storage.js";
import type { WebhookSecrets } from "../ports/webhook-secrets.js";
import { postWebhook, type PostOutcome } from "./post-webhook.js";
import { nextRetryAt, type RetryPolicy } from "./retry-schedule.js";
import { webhookBody, webhookHeaders } from "./sign-webhook.js";

/** What one attempt did, as the dispatcher reports it. */
export type AttemptReport = {
  deliveryId: string;
  subscriptionId: string;
  eventType: string;
  attempt: number;
  outcome: "delivered" | "retry" | "failed";
  responseStatus: number | null;
  error: string | null;
  /** When the next attempt is due (microseconds), for a retry. */
  nextAttemptAt: number | null;
};

/** What an attempt runs on. */
export interface AttemptContext {
  storage: Storage;
  secrets: WebhookSecrets;
  clock: Clock;
  fetch: typeof fetch;
  timeoutMs: number;
  retry: RetryPolicy;
  /** Refuses a URL at a non-public address (after DNS); applied to `publicOnly` subscriptions. */
  checkUrl?: (url: string) => Promise<void>;
  /** The transport of `publicOnly` subscriptions: connects only to the public address it resolved itself. */
  fetchPublic?: typeof fetch | undefined;
}

/** Makes one attempt at a claimed delivery and records its outcome. */
export async function attemptDelivery(context: AttemptContext, claimed: ClaimedDelivery): Promise<AttemptReport> {
  const { delivery, subscription } = claimed;
  const result = await send(context, claimed);
  const at = context.clock.now();
  const retryAt = result.delivered ? null : nextRetryAt(context.retry, { attempt: delivery.attempts, now: at, createdAt: delivery.createdAt });
  const outcome = result.delivered ? "delivered" : retryAt === null ? "failed" : "retry";
  const common = { id: delivery.id, attempt: delivery.attempts, at, responseStatus: result.responseStatus, error: result.error };
  await context.storage.recordDeliveryAttempt(
    outcome === "retry" ? { ...common, outcome, nextAttemptAt: retryAt! } : { ...common, outcome },
  );
  return {
    deliveryId: delivery.id,
    subscriptionId: subscription.id,
    eventType: delivery.eventType,
    attempt: delivery.attempts,
    outcome,
    responseStatus: result.responseStatus,
    error: result.error,
    nextAttemptAt: outcome === "retry" ? retryAt : null,
  };
}

async function send(context: AttemptContext, { delivery, event, subscription }: ClaimedDelivery): Promise<PostOutcome> {
  let keyId: string;
  try {
    keyId = context.secrets.keyId();
  } catch (error) {
    // No key (a key file not restored, say): retried on schedule, and visible in the delivery.
    return { delivered: false, responseStatus: null, error: `signing key unavailable: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (subscription.signingKeyId !== keyId) {
    // Signing with another key would only earn rejections: say so where the operator looks.
    const error = `signing key mismatch: the subscription's secret comes from key ${subscription.signingKeyId || "(none)"}, this process has key ${keyId}`;
    return { delivered: false, responseStatus: null, error };
  }
  if (subscription.publicOnly && context.checkUrl) {
    try {
      await context.checkUrl(subscription.url);
    } catch (error) {
      // Retried on schedule: the name may point at a public address again later.
      return { delivered: false, responseStatus: null, error: isParleyError(error) ? error.detail : "the URL's address could not be checked" };
    }
  }
  const body = webhookBody(event);
  const timestampSeconds = Math.floor(context.clock.now() / 1_000_000);
  const headers = webhookHeaders({ secret: context.secrets.secretFor(subscription.id), id: delivery.id, timestampSeconds, body });
  const transport = subscription.publicOnly && context.fetchPublic ? context.fetchPublic : context.fetch;
  return postWebhook(transport, { url: subscription.url, headers, body, timeoutMs: context.timeoutMs });
}
