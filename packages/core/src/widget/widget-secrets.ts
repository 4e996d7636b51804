import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { Chatbot } from "../domain/chatbot.js";
import type { WidgetSecrets } from "../ports/widget-secrets.js";
import { MIN_MASTER_KEY_BYTES } from "../webhooks/derived-webhook-secrets.js";

// Domain separation from the webhook secrets and the key id derived from the same master key.
const SECRET_LABEL = "parley/widget-identity-secret/v1\u0000";

/**
 * Widget identity secrets derived as HMAC-SHA256(master key, label ‖ chatbot id ‖ NUL ‖ nonce):
 * 32 bytes shown as `wsec_<base64url>`. `masterKey` may be a function, called once on first use.
 */
export function createDerivedWidgetSecrets(masterKey: Uint8Array | (() => Uint8Array)): WidgetSecrets {
  let key: Uint8Array | undefined = typeof masterKey === "function" ? undefined : checked(masterKey);
  const master = () => (key ??= checked((masterKey as () => Uint8Array)()));
  return {
    secretFor: (chatbotId, nonce) => `wsec_${createHmac("sha256", master()).update(`${SECRET_LABEL}${chatbotId}\u0000${nonce}`).digest("base64url")}`,
  };
}

/** Secrets from a random key that lives as long as the process: for tests and in-memory storage. */
export function createEphemeralWidgetSecrets(): WidgetSecrets {
  return createDerivedWidgetSecrets(randomBytes(MIN_MASTER_KEY_BYTES));
}

/** A new random nonce for a chatbot's next secret: 16 bytes as hex. */
export const newWidgetSecretNonce = (): string => randomBytes(16).toString("hex");

/** The chatbot's current identity secret, or null while its owner has made none. */
export function widgetSecretOf(secrets: WidgetSecrets, chatbot: Pick<Chatbot, "id" | "widgetSecretNonce">): string | null {
  return chatbot.widgetSecretNonce === null ? null : secrets.secretFor(chatbot.id, chatbot.widgetSecretNonce);
}

/**
 * The `user_hash` a host site sends for a signed-in user: the lowercase hex HMAC-SHA256 of the
 * `user_id` (its UTF-8 bytes) keyed with the secret (the whole string's UTF-8 bytes, prefix included).
 */
export function widgetUserHash(secret: string, userId: string): string {
  return createHmac("sha256", secret).update(userId, "utf8").digest("hex");
}

/**
 * Whether `userHash` proves `userId` under the secret (compared in constant time). False when
 * there is no secret or either value is missing or not a string.
 */
export function verifyWidgetUserHash(secret: string | null, userId: unknown, userHash: unknown): boolean {
  if (secret === null || typeof userId !== "string" || typeof userHash !== "string" || userId === "") return false;
  const expected = Buffer.from(widgetUserHash(secret, userId), "utf8");
  const given = Buffer.from(userHash, "utf8");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function checked(key: Uint8Array): Uint8Array {
  if (key.byteLength < MIN_MASTER_KEY_BYTES) throw new Error(`The master key must be at least ${MIN_MASTER_KEY_BYTES} bytes long.`);
  return key;
}
