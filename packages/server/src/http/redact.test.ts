import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact.js";

describe("redactSecrets", () => {
  it("replaces configured secrets and key-shaped strings in every nested string", () => {
    const line = {
      msg: "failed",
      error: { message: "401 Incorrect API key provided: sk-proj-abcdef123456", cause: { message: "token my-custom-secret-value rejected" } },
      keys: [`prl_${"a".repeat(43)}`, "whsec_c2VjcmV0c2VjcmV0"],
      status: 401,
    };
    const redacted = redactSecrets(line, ["my-custom-secret-value"]);
    expect(redacted).toEqual({
      msg: "failed",
      error: { message: "401 Incorrect API key provided: [redacted]", cause: { message: "token [redacted] rejected" } },
      keys: ["[redacted]", "[redacted]"],
      status: 401,
    });
  });

  it("leaves ordinary text alone, and ignores secrets too short to search for safely", () => {
    expect(redactSecrets({ path: "/v1/chatbots", note: "ask a question" }, ["ask"])).toEqual({ path: "/v1/chatbots", note: "ask a question" });
  });
});
