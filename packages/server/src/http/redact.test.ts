import { describe, expect, it } from "vitest";
import { createRedactor } from "./redact.js";

describe("createRedactor, on one line", () => {
  it("replaces configured secrets and key-shaped strings in every nested string", () => {
    const line = {
      msg: "failed",
      error: { message: "401 Incorrect API key provided: sk-proj-abcdef123456", cause: { message: "token my-custom-secret-value rejected" } },
      keys: [`prl_${"a".repeat(43)}`, "whsec_c2VjcmV0c2VjcmV0"],
      status: 401,
    };
    const redacted = createRedactor(["my-custom-secret-value"])(line);
    expect(redacted).toEqual({
      msg: "failed",
      error: { message: "401 Incorrect API key provided: [redacted]", cause: { message: "token [redacted] rejected" } },
      keys: ["[redacted]", "[redacted]"],
      status: 401,
    });
  });

  it("leaves ordinary text alone, and ignores secrets too short to search for safely", () => {
    expect(createRedactor(["ask"])({ path: "/v1/chatbots", note: "ask a question" })).toEqual({ path: "/v1/chatbots", note: "ask a question" });
  });
});

describe("createRedactor", () => {
  const redact = createRedactor(["my+secret.value(1)", "short"]);

  it("replaces configured secrets (regex characters and all) and key-shaped strings, however deep", () => {
    const line = {
      msg: "upstream said: my+secret.value(1) is wrong",
      cause: { message: "Incorrect API key provided: sk-test-secret-1234", list: ["prl_abcdefghijklmnop", "whsec_QUJDREVGR0hJSg=="] },
    };
    expect(redact(line)).toEqual({
      msg: "upstream said: [redacted] is wrong",
      cause: { message: "Incorrect API key provided: [redacted]", list: ["[redacted]", "[redacted]"] },
    });
  });

  it("leaves other values alone, ignores configured values too short to be secrets, and does not touch its input", () => {
    const line = { status: 200, duration_ms: 0.5, key_id: null, ok: true, path: "/v1/chatbots", note: "short" };
    expect(redact(line)).toEqual(line);
    const input = { text: "sk-abcdefgh" };
    redact(input);
    expect(input.text).toBe("sk-abcdefgh");
  });
});
