import { describe, expect, it } from "vitest";
import { createVisitorTokens, VISITOR_TOKEN_TTL_MICROS } from "./visitor-tokens.js";

const key = new Uint8Array(32).fill(7);
const chatbot = "3f0c9a55-2b7e-4c1d-9e8a-6d5b4c3a2f10";
const now = 1_800_000_000_000_000;

describe("visitor tokens", () => {
  const tokens = createVisitorTokens(key);

  it("carry the session of their chatbot until they expire", () => {
    const token = tokens.issue(chatbot, "visitor-abc", now);
    expect(tokens.verify(chatbot, token, now)).toBe("visitor-abc");
    expect(tokens.verify(chatbot, token, now + VISITOR_TOKEN_TTL_MICROS - 1_000_000)).toBe("visitor-abc");
    expect(tokens.verify(chatbot, token, now + VISITOR_TOKEN_TTL_MICROS + 1_000_000)).toBeNull();
  });

  it("are refused for another chatbot, altered, under another key, or malformed", () => {
    const token = tokens.issue(chatbot, "user-42", now);
    expect(tokens.verify("4f0c9a55-2b7e-4c1d-9e8a-6d5b4c3a2f10", token, now)).toBeNull();
    const [version, payload, mac] = token.split(".");
    const forged = Buffer.from(JSON.stringify({ c: chatbot, s: "user-1", e: 9_999_999_999 })).toString("base64url");
    expect(tokens.verify(chatbot, `${version}.${forged}.${mac}`, now)).toBeNull();
    const flipped = mac!.slice(0, -2) + (mac!.endsWith("A") ? "B" : "A") + mac!.slice(-1);
    expect(tokens.verify(chatbot, `${version}.${payload}.${flipped}`, now)).toBeNull();
    expect(createVisitorTokens(new Uint8Array(32).fill(8)).verify(chatbot, token, now)).toBeNull();
    for (const bad of [undefined, "", "v1", "v1..", `v2.${payload}.${mac}`, `${token}.x`, "x".repeat(5000)]) expect(tokens.verify(chatbot, bad, now)).toBeNull();
  });

  it("say nothing readable of the key, and refuse a master key shorter than 32 bytes", () => {
    const token = tokens.issue(chatbot, "visitor-abc", now);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(() => createVisitorTokens(new Uint8Array(16)).issue(chatbot, "s", now)).toThrow(/at least 32 bytes/);
  });
});
