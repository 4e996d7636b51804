import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("has the defaults of docs/design.md §7", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databasePath: "./parley.db",
      port: 8787,
      host: "127.0.0.1",
      embedder: { kind: "local" },
      keyRequestsPerMinute: 60,
      conversationMessagesPerMinute: 20,
      providers: { timeoutMs: 60_000, ollama: { host: "http://127.0.0.1:11434" } },
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxHeaderBytes: 16_384, maxConnections: 1_000 },
      shutdownGraceMs: 10_000,
    });
  });

  it("reads the HTTP limits and the shutdown grace", () => {
    const config = loadConfig({
      PARLEY_HEADERS_TIMEOUT_MS: "2000",
      PARLEY_REQUEST_TIMEOUT_MS: "5000",
      PARLEY_MAX_HEADER_BYTES: "8192",
      PARLEY_MAX_CONNECTIONS: "64",
      PARLEY_SHUTDOWN_GRACE_MS: "0",
    });
    expect(config.http).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxHeaderBytes: 8192, maxConnections: 64 });
    expect(config.shutdownGraceMs).toBe(0);
  });

  it("reads every variable, and lets flags win over the environment", () => {
    const config = loadConfig(
      {
        PARLEY_DB: "/data/p.db",
        PORT: "9000",
        HOST: "0.0.0.0",
        PARLEY_EMBEDDER: "ollama:nomic-embed-text",
        PARLEY_KEY_RATE_LIMIT: "120",
        PARLEY_CONVERSATION_RATE_LIMIT: "5",
        PARLEY_LLM_TIMEOUT_MS: "1500",
        OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
        OLLAMA_HOST: "gpu-box:11434",
      },
      { port: 1234 },
    );
    expect(config).toMatchObject({
      databasePath: "/data/p.db",
      port: 1234,
      host: "0.0.0.0",
      embedder: { kind: "ollama", model: "nomic-embed-text" },
      keyRequestsPerMinute: 120,
      conversationMessagesPerMinute: 5,
      providers: { timeoutMs: 1500, openai: { baseURL: "http://127.0.0.1:8000/v1" }, ollama: { host: "gpu-box:11434" } },
    });
  });

  it.each([
    [{ PORT: "http" }, 'PORT must be a whole number from 0 to 65535 (got "http").'],
    [{ PORT: "70000" }, 'PORT must be a whole number from 0 to 65535 (got "70000").'],
    [{ PARLEY_CONVERSATION_RATE_LIMIT: "0" }, 'PARLEY_CONVERSATION_RATE_LIMIT must be a whole number from 1 to 1000000 (got "0").'],
    [{ OPENAI_BASE_URL: "localhost:8000" }, 'OPENAI_BASE_URL must be an http or https URL (got "localhost:8000").'],
    [{ PARLEY_EMBEDDER: "cohere:embed" }, /^PARLEY_EMBEDDER must be "local", "openai:<model>" or "ollama:<model>"/],
    [{ PARLEY_LLM_TIMEOUT_MS: "-5" }, /^PARLEY_LLM_TIMEOUT_MS must be a positive whole number/],
    [{ PARLEY_MAX_CONNECTIONS: "0" }, 'PARLEY_MAX_CONNECTIONS must be a whole number from 1 to 1000000 (got "0").'],
    [{ PARLEY_MAX_HEADER_BYTES: "100" }, 'PARLEY_MAX_HEADER_BYTES must be a whole number from 1024 to 1048576 (got "100").'],
    [{ PARLEY_SHUTDOWN_GRACE_MS: "soon" }, 'PARLEY_SHUTDOWN_GRACE_MS must be a whole number from 0 to 3600000 (got "soon").'],
    [{ PARLEY_HEADERS_TIMEOUT_MS: "40000" }, "PARLEY_HEADERS_TIMEOUT_MS (40000) must not exceed PARLEY_REQUEST_TIMEOUT_MS (30000)."],
  ])("refuses %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
