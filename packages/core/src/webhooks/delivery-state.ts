import type { DeliveryStatus } from "../domain/webhook.js";
import type { DeliveryAttempt } from "../ports/storage-webhooks.js";

/**
 * The delivery fields an attempt's outcome sets, the one rule every adapter applies: a retry
 * stays pending until its next attempt; a delivered or failed delivery is final.
 */
export function deliveryStateAfter(attempt: DeliveryAttempt): { status: DeliveryStatus; nextAttemptAt: number | null; deliveredAt: number | null } {
  return {
    status: attempt.outcome === "retry" ? "pending" : attempt.outcome,
    nextAttemptAt: attempt.outcome === "retry" ? attempt.nextAttemptAt : null,
    deliveredAt: attempt.outcome === "delivered" ? attempt.at : null,
  };
}
