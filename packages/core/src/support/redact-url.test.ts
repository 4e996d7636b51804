import { describe, expect, it } from "vitest";
import { redactUrl } from "./redact-url.js";

describe("redactUrl", () => {
  it("replaces the password and keeps the rest", () => {
    expect(redactUrl("postgres://parley:s3cret@db.local:5432/parley")).toBe("postgres://parley:***@db.local:5432/parley");
    expect(redactUrl("redis://:hunter2@127.0.0.1:6379/0")).toBe("redis://:***@127.0.0.1:6379/0");
  });

  it("leaves a URL without a password as it is", () => {
    expect(redactUrl("redis://127.0.0.1:6379")).toBe("redis://127.0.0.1:6379");
  });

  it("never echoes an unparseable URL, which may hold a password", () => {
    expect(redactUrl("not a url with s3cret")).toBe("(an unparseable URL)");
  });
});
