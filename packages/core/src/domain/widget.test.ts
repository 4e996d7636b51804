import { describe, expect, it } from "vitest";
import { isParleyError } from "../errors.js";
import { checkWidgetSettingsPart, DEFAULT_WIDGET_SETTINGS, isWebOrigin, widgetSettingsFrom } from "./widget.js";
import { createDerivedWidgetSecrets, verifyWidgetUserHash, widgetUserHash } from "../widget/widget-secrets.js";
import { createDerivedWebhookSecrets } from "../webhooks/derived-webhook-secrets.js";

const refusal = (part: unknown) => {
  try {
    checkWidgetSettingsPart(part);
  } catch (error) {
    if (isParleyError(error, "invalid_request")) return error.detail;
    throw error;
  }
  return undefined;
};

describe("widget settings", () => {
  it("reads a stored part under the defaults: an empty or older row is off", () => {
    expect(widgetSettingsFrom({})).toEqual(DEFAULT_WIDGET_SETTINGS);
    expect(widgetSettingsFrom(null)).toEqual({ ...DEFAULT_WIDGET_SETTINGS, enabled: false });
    expect(widgetSettingsFrom({ enabled: true }).accent_color).toBe("#2563eb");
  });

  it("accepts exactly scheme://host[:port] origins", () => {
    for (const origin of ["https://example.com", "http://localhost:8080", "https://a-b.example.co.uk", "http://127.0.0.1:3000", "https://[::1]:8443"]) {
      expect(isWebOrigin(origin), origin).toBe(true);
    }
    for (const origin of ["https://example.com/", "https://example.com/a", "https://*.example.com", "*", "example.com", "https://EXAMPLE.com", "https://example.com:443", "http://example.com:80", "https://example.com?x", "https://example.com#x", "https://u@example.com", "ws://example.com", "https://-bad.example.com", " https://example.com"]) {
      expect(isWebOrigin(origin), origin).toBe(false);
    }
  });

  it("checks a part field by field, naming the first bad one", () => {
    expect(checkWidgetSettingsPart({ title: "  Hi ", accent_color: "#ABCDEF", allowed_origins: ["https://a.example", "https://a.example"] })).toEqual({
      title: "Hi",
      accent_color: "#abcdef",
      allowed_origins: ["https://a.example"],
    });
    expect(checkWidgetSettingsPart({ title: null })).toEqual({ title: null });
    expect(checkWidgetSettingsPart({})).toEqual({});
    expect(refusal({ allowed_origins: ["https://ok.example", "https://x.example/"] })).toMatch(/^widget\.allowed_origins\.1: must be an origin/);
    expect(refusal({ allowed_origins: new Array(21).fill("https://a.example") })).toBe("widget.allowed_origins: must hold at most 20 items");
    expect(refusal({ title: "" })).toBe("widget.title: must be a non-empty string");
    expect(refusal({ title: 5 })).toBe("widget.title: must be a string or null");
    expect(refusal({ title: "x".repeat(81) })).toBe("widget.title: must be at most 80 characters");
    expect(refusal({ welcome_message: "x".repeat(500) })).toBeUndefined();
    expect(refusal({ welcome_message: "x".repeat(501) })).toBe("widget.welcome_message: must be at most 500 characters");
    expect(refusal({ starter_questions: ["a", "b", "c", "d"] })).toBeUndefined();
    expect(refusal({ starter_questions: ["a", "b", "c", "d", "e"] })).toBe("widget.starter_questions: must hold at most 4 items");
    expect(refusal({ starter_questions: ["x".repeat(121)] })).toBe("widget.starter_questions.0: must be at most 120 characters");
    expect(refusal({ accent_color: "#abc" })).toBe("widget.accent_color: must be a colour written #rrggbb, e.g. #2563eb");
    expect(refusal({ position: "center" })).toBe("widget.position: must be one of right, left");
    expect(refusal({ enabled: 1 })).toBe("widget.enabled: must be a boolean");
    expect(refusal({ secret: "x" })).toBe("widget.secret: is not a widget setting");
    expect(refusal([])).toBe("widget: must be an object");
  });
});

describe("widget identity secrets", () => {
  const key = Buffer.alloc(32, 7);

  it("derive the same secret from the same key, chatbot and nonce, and another for any change", () => {
    const secrets = createDerivedWidgetSecrets(key);
    const secret = secrets.secretFor("bot-1", "nonce-1");
    expect(secret).toMatch(/^wsec_[A-Za-z0-9_-]{43}$/);
    expect(createDerivedWidgetSecrets(() => Buffer.from(key)).secretFor("bot-1", "nonce-1")).toBe(secret);
    expect(secrets.secretFor("bot-1", "nonce-2")).not.toBe(secret);
    expect(secrets.secretFor("bot-2", "nonce-1")).not.toBe(secret);
    expect(createDerivedWidgetSecrets(Buffer.alloc(32, 8)).secretFor("bot-1", "nonce-1")).not.toBe(secret);
    // Separated from the webhook secrets of the same key.
    expect(secret.slice(5)).not.toBe(createDerivedWebhookSecrets(key).secretFor("bot-1").slice(6));
    expect(() => createDerivedWidgetSecrets(Buffer.alloc(31)).secretFor("a", "b")).toThrow(/at least 32 bytes/);
  });

  it("verify a user_hash: the lowercase hex HMAC-SHA256 of the user id under the secret", () => {
    const secret = "wsec_test";
    // echo -n "user-42" | openssl dgst -sha256 -hmac wsec_test
    expect(widgetUserHash(secret, "user-42")).toBe("81427cd938ea817f99680710c6edd4353faa3df03c0b49c86d0ea1dc0ae19ddf");
    const hash = widgetUserHash(secret, "user-42");
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(verifyWidgetUserHash(secret, "user-42", hash)).toBe(true);
    expect(verifyWidgetUserHash(secret, "user-42", hash.toUpperCase())).toBe(false);
    expect(verifyWidgetUserHash(secret, "user-4", hash)).toBe(false);
    expect(verifyWidgetUserHash("wsec_other", "user-42", hash)).toBe(false);
    expect(verifyWidgetUserHash(null, "user-42", hash)).toBe(false);
    expect(verifyWidgetUserHash(secret, "user-42", undefined)).toBe(false);
    expect(verifyWidgetUserHash(secret, "", widgetUserHash(secret, ""))).toBe(false);
  });
});
