import { createHmac } from "node:crypto";
import type { OutboxEvent } from "../domain/events.js";
import { formatTimestamp } from "../support/time.js";

const SECRET_PREFIX = "whsec_";

/** The JSON body of docs/design.md §5, `{"type","timestamp","data"}`; the same on every attempt. */
export function webhookBody(event: OutboxEvent): string {
  return JSON.stringify({ type: event.type, timestamp: formatTimestamp(event.createdAt), data: event.data });
}

/**
 * The Standard Webhooks signature: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`,
 * keyed with the base64-decoded part of the `whsec_` secret.
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("A webhook secret starts with whsec_.");
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), "base64");
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`;
}

/** The headers of one attempt (Standard Webhooks), signed for `timestampSeconds`. */
export function webhookHeaders(input: { secret: string; id: string; timestampSeconds: number; body: string }): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "Parley-Webhooks/1",
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestampSeconds),
    "webhook-signature": signWebhook(input.secret, input.id, input.timestampSeconds, input.body),
  };
}
