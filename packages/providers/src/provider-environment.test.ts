import { describe, expect, test } from "vitest";
import { DEFAULT_TIMEOUT_MS, parseTimeoutMs, readProviderEnvironment } from "./provider-environment.js";

describe("readProviderEnvironment", () => {
  test("uses the documented defaults for an empty environment", () => {
    expect(readProviderEnvironment({})).toEqual({
      openai: { apiKey: undefined, baseURL: "https://api.openai.com/v1", organization: undefined, project: undefined },
      anthropic: { apiKey: undefined, baseURL: "https://api.anthropic.com" },
      ollama: { host: "http://127.0.0.1:11434" },
      timeoutMs: 60_000,
      embedderDimensions: undefined,
    });
  });

  test("reads every variable, ignoring blank ones", () => {
    const environment = readProviderEnvironment({
      OPENAI_API_KEY: "sk-1",
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      ANTHROPIC_API_KEY: " ",
      ANTHROPIC_BASE_URL: "http://proxy.internal",
      OLLAMA_HOST: "gpu-box:11434",
      PARLEY_LLM_TIMEOUT_MS: "15000",
      PARLEY_EMBEDDER_DIMENSIONS: "384",
    });
    expect(environment.openai).toMatchObject({ apiKey: "sk-1", baseURL: "http://127.0.0.1:8000/v1" });
    expect(environment.anthropic).toEqual({ apiKey: undefined, baseURL: "http://proxy.internal" });
    expect(environment.ollama.host).toBe("gpu-box:11434");
    expect(environment.timeoutMs).toBe(15_000);
    expect(environment.embedderDimensions).toBe(384);
  });

  test("rejects a malformed PARLEY_EMBEDDER_DIMENSIONS", () => {
    expect(() => readProviderEnvironment({ PARLEY_EMBEDDER_DIMENSIONS: "big" })).toThrow(/PARLEY_EMBEDDER_DIMENSIONS/);
  });
});

describe("parseTimeoutMs", () => {
  test("defaults to 60 s", () => {
    expect(parseTimeoutMs(undefined)).toBe(DEFAULT_TIMEOUT_MS);
    expect(parseTimeoutMs("  ")).toBe(DEFAULT_TIMEOUT_MS);
  });

  test.each(["0", "-5", "1.5", "ten", "1e3"])("rejects %s", (text) => {
    expect(() => parseTimeoutMs(text)).toThrow(`PARLEY_LLM_TIMEOUT_MS must be a positive whole number of milliseconds, got "${text}".`);
  });
});
