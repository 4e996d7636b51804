import { createHmac, timingSafeEqual } from "node:crypto";
import { MIN_MASTER_KEY_BYTES } from "../webhooks/derived-webhook-secrets.js";

/** How long a visitor token is valid: 30 days (docs/design.md §14). */
export const VISITOR_TOKEN_TTL_MICROS = 30 * 24 * 3600 * 1_000_000;
/** A longer Authorization value is refused before any work (a real token is under 400 characters). */
const MAX_TOKEN_CHARS = 1_024;
// Domain separation: the master key yields unrelated keys for each purpose.
const KEY_LABEL = "parley/visitor-token-key/v1";
const VERSION = "v1";

/** Issues and checks visitor tokens: stateless, bound to one chatbot and one session, signed. */
export interface VisitorTokens {
  /** A token for `sessionId` of `chatbotId`, valid 30 days from `now` (microseconds). */
  issue(chatbotId: string, sessionId: string, now: number): string;
  /** The session id a token carries, when it is intact, unexpired at `now` and of `chatbotId`; else null. */
  verify(chatbotId: string, token: string | undefined, now: number): string | null;
}

/**
 * Visitor tokens (docs/design.md §14): `v1.<payload>.<mac>`, the payload the base64url JSON of
 * `{c: chatbot id, s: session id, e: expiry in seconds}`, the mac HMAC-SHA256 of `v1.<payload>`
 * under a key derived from the server's master key, compared in constant time. Nothing is
 * stored: any process with the same master key checks any token, and a new master key ends
 * every session. `masterKey` may be a function, called once on first use.
 */
export function createVisitorTokens(masterKey: Uint8Array | (() => Uint8Array)): VisitorTokens {
  let key: Buffer | undefined;
  const signingKey = () => {
    if (key) return key;
    const master = typeof masterKey === "function" ? masterKey() : masterKey;
    if (master.byteLength < MIN_MASTER_KEY_BYTES) throw new Error(`The master key must be at least ${MIN_MASTER_KEY_BYTES} bytes long.`);
    return (key = createHmac("sha256", master).update(KEY_LABEL).digest());
  };
  const mac = (signed: string) => createHmac("sha256", signingKey()).update(signed).digest();

  return {
    issue(chatbotId, sessionId, now) {
      const expires = Math.floor((now + VISITOR_TOKEN_TTL_MICROS) / 1_000_000);
      const signed = `${VERSION}.${Buffer.from(JSON.stringify({ c: chatbotId, s: sessionId, e: expires })).toString("base64url")}`;
      return `${signed}.${mac(signed).toString("base64url")}`;
    },
    verify(chatbotId, token, now) {
      if (typeof token !== "string" || token.length > MAX_TOKEN_CHARS) return null;
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== VERSION) return null;
      // The MAC's text is compared, not its decoded bytes: base64url decoding ignores the last
      // character's spare bits and skips stray characters, so several texts decode to one MAC,
      // and a token altered in its last character would still pass.
      const given = Buffer.from(parts[2]!, "utf8");
      const expected = Buffer.from(mac(`${parts[0]}.${parts[1]}`).toString("base64url"), "utf8");
      // Same length first (timingSafeEqual demands it); the length of a MAC is no secret.
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      let payload: unknown;
      try {
        payload = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
      } catch {
        return null;
      }
      const { c, s, e } = (payload ?? {}) as { c?: unknown; s?: unknown; e?: unknown };
      if (typeof c !== "string" || typeof s !== "string" || typeof e !== "number") return null;
      if (c !== chatbotId || e * 1_000_000 <= now) return null;
      return s;
    },
  };
}

/** Tokens under a key that lives as long as the process: for tests and in-memory storage. */
export function createEphemeralVisitorTokens(): VisitorTokens {
  return createVisitorTokens(() => globalThis.crypto.getRandomValues(new Uint8Array(MIN_MASTER_KEY_BYTES)));
}
