import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createDerivedWebhookSecrets } from "./derived-webhook-secrets.js";
import { signWebhook } from "./sign-webhook.js";

const KEY = Buffer.alloc(32, 1);

describe("derived webhook secrets", () => {
  it("derives the same whsec_ secret for the same key and subscription, and another for anything else", () => {
    const secrets = createDerivedWebhookSecrets(KEY);
    const secret = secrets.secretFor("sub-1");
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(createDerivedWebhookSecrets(Buffer.from(KEY)).secretFor("sub-1")).toBe(secret);
    expect(secrets.secretFor("sub-2")).not.toBe(secret);
    expect(createDerivedWebhookSecrets(Buffer.alloc(32, 2)).secretFor("sub-1")).not.toBe(secret);
  });

  it("names its key by a fingerprint that is neither the key nor any secret", () => {
    const secrets = createDerivedWebhookSecrets(KEY);
    expect(secrets.keyId()).toMatch(/^[0-9a-f]{16}$/);
    expect(secrets.keyId()).toBe(createDerivedWebhookSecrets(KEY).keyId());
    expect(secrets.keyId()).not.toBe(createDerivedWebhookSecrets(Buffer.alloc(32, 2)).keyId());
    expect(KEY.toString("hex")).not.toContain(secrets.keyId());
  });

  it("refuses a master key shorter than 32 bytes", () => {
    expect(() => createDerivedWebhookSecrets(Buffer.alloc(31))).toThrow("The webhook master key must be at least 32 bytes long.");
  });

  it("reads a lazily supplied key once, on first use", () => {
    let reads = 0;
    const secrets = createDerivedWebhookSecrets(() => (reads += 1, KEY));
    expect(reads).toBe(0);
    expect(secrets.secretFor("sub-1")).toBe(createDerivedWebhookSecrets(KEY).secretFor("sub-1"));
    secrets.keyId();
    expect(reads).toBe(1);
  });

  it("signs v1,base64(HMAC-SHA256(key, id.timestamp.body)) with the decoded secret as key", () => {
    const secret = `whsec_${Buffer.from("a test key of some length").toString("base64")}`;
    const expected = createHmac("sha256", "a test key of some length").update('msg_1.1700000000.{"a":1}').digest("base64");
    expect(signWebhook(secret, "msg_1", 1_700_000_000, '{"a":1}')).toBe(`v1,${expected}`);
  });
});
