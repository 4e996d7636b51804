// Child process of the restart test (sqlite-webhook-restart.test.ts): runs a webhook
// dispatcher on a database file, printing one JSON line per attempt, until it is killed.
// Run as: node --conditions=source --import tsx sqlite-webhook-dispatcher-child.ts PATH KEY_HEX
import { createDerivedWebhookSecrets, createWebhookDispatcher } from "@parley/core";
import { createSqliteStorage } from "./sqlite-storage.js";

/** Retry timing short enough for a test: a retry 400 ms after a failure, a lease of 1 s. */
export const CHILD_TIMING = { retryAfterMs: 400, leaseMs: 1_000, timeoutMs: 5_000 };

const [path, keyHex] = process.argv.slice(2);
if (path && keyHex) {
  const dispatcher = createWebhookDispatcher({
    storage: createSqliteStorage({ path }),
    secrets: createDerivedWebhookSecrets(Buffer.from(keyHex, "hex")),
    timeoutMs: CHILD_TIMING.timeoutMs,
    leaseMs: CHILD_TIMING.leaseMs,
    pollIntervalMs: 50,
    // A jitter just under 1 makes the wait the whole ceiling: a predictable schedule.
    retry: { ceilingsMs: [CHILD_TIMING.retryAfterMs], random: () => 0.999_999 },
    log: (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`),
  });
  dispatcher.start();
  process.stdout.write(`${JSON.stringify({ event: "started" })}\n`);
}
