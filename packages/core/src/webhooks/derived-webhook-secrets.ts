import { createHmac, randomBytes } from "node:crypto";
import type { WebhookSecrets } from "../ports/webhook-secrets.js";

/** The shortest master key accepted: 32 bytes, as much as the HMAC-SHA256 it keys. */
export const MIN_MASTER_KEY_BYTES = 32;

// Domain separation: the same master key yields unrelated values for each purpose.
const SECRET_LABEL = "parley/webhook-signing-secret/v1\u0000";
const KEY_ID_LABEL = "parley/master-key-id/v1";

/**
 * Signing secrets derived as HMAC-SHA256(master key, subscription id): 32 bytes shown as
 * `whsec_<base64>`. Nothing secret is stored; the same key gives the same secrets after a
 * restart or in another process. `masterKey` may be a function, called once on first use, so
 * a key file is only created when webhooks are used.
 */
export function createDerivedWebhookSecrets(masterKey: Uint8Array | (() => Uint8Array)): WebhookSecrets {
  let key: Uint8Array | undefined = typeof masterKey === "function" ? undefined : checked(masterKey);
  const master = () => (key ??= checked((masterKey as () => Uint8Array)()));
  return {
    keyId: () => createHmac("sha256", master()).update(KEY_ID_LABEL).digest("hex").slice(0, 16),
    secretFor: (subscriptionId) =>
      `whsec_${createHmac("sha256", master()).update(SECRET_LABEL + subscriptionId).digest("base64")}`,
  };
}

/** Secrets from a random key that lives as long as the process: for tests and in-memory storage. */
export function createEphemeralWebhookSecrets(): WebhookSecrets {
  return createDerivedWebhookSecrets(randomBytes(MIN_MASTER_KEY_BYTES));
}

function checked(key: Uint8Array): Uint8Array {
  if (key.byteLength < MIN_MASTER_KEY_BYTES) throw new Error(`The webhook master key must be at least ${MIN_MASTER_KEY_BYTES} bytes long.`);
  return key;
}
