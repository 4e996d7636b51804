import { describe, expect, test } from "vitest";
import { describeUpstreamFailure, retryAfterMsOf } from "./upstream-failure.js";

const withStatus = (status: number, headers: Record<string, string> = {}) => Object.assign(new Error("x"), { status, headers: new Headers(headers) });

describe("describeUpstreamFailure", () => {
  test.each([408, 429, 500, 502, 503, 529])("status %i is retryable", (status) => {
    expect(describeUpstreamFailure(withStatus(status))).toEqual({ retryable: true, upstreamStatus: status });
  });

  test.each([400, 401, 403, 404, 409, 422])("status %i is not retryable", (status) => {
    expect(describeUpstreamFailure(withStatus(status))).toEqual({ retryable: false, upstreamStatus: status });
  });

  test("reads ollama's status_code", () => {
    expect(describeUpstreamFailure(Object.assign(new Error("x"), { status_code: 503 }))).toEqual({ retryable: true, upstreamStatus: 503 });
  });

  test("finds a network code anywhere in the cause chain", () => {
    const refused = new TypeError("fetch failed", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
    expect(describeUpstreamFailure(refused)).toEqual({ retryable: true });
    expect(describeUpstreamFailure(new SyntaxError("Unexpected token"))).toEqual({ retryable: false });
  });

  test("asks the SDK's own connection check", () => {
    expect(describeUpstreamFailure(new Error("connection"), () => true)).toEqual({ retryable: true });
  });

  test("keeps Retry-After only for retryable statuses", () => {
    expect(describeUpstreamFailure(withStatus(429, { "retry-after": "2" }))).toEqual({ retryable: true, upstreamStatus: 429, retryAfterMs: 2_000 });
    expect(describeUpstreamFailure(withStatus(400, { "retry-after": "2" }))).toEqual({ retryable: false, upstreamStatus: 400 });
  });
});

describe("retryAfterMsOf", () => {
  test("prefers retry-after-ms, then seconds, then an HTTP date", () => {
    expect(retryAfterMsOf(withStatus(429, { "retry-after-ms": "150", "retry-after": "9" }))).toBe(150);
    expect(retryAfterMsOf(withStatus(429, { "retry-after": "3" }))).toBe(3_000);
    const now = Date.parse("2026-11-21T10:00:00Z");
    expect(retryAfterMsOf(withStatus(429, { "retry-after": "Sat, 21 Nov 2026 10:00:05 GMT" }), now)).toBe(5_000);
  });

  test("ignores a missing or unreadable header", () => {
    expect(retryAfterMsOf(withStatus(429))).toBeUndefined();
    expect(retryAfterMsOf(withStatus(429, { "retry-after": "later" }))).toBeUndefined();
    expect(retryAfterMsOf(new Error("no headers"))).toBeUndefined();
  });
});
