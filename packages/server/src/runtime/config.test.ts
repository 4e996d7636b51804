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
      adminKeyRequestsPerMinute: 600,
      conversationMessagesPerMinute: 20,
      providers: { timeoutMs: 60_000, ollama: { host: "http://127.0.0.1:11434" } },
    });
  });

  it("reads every variable it looks at, and lets flags win over the environment", () => {
    const env: Record<string, string> = {
      PARLEY_DB: "/data/p.db",
      PORT: "9000",
      HOST: "0.0.0.0",
      PARLEY_EMBEDDER: "ollama:my-embedder",
      PARLEY_EMBEDDER_DIMENSIONS: "384",
      PARLEY_KEY_RATE_LIMIT: "120",
      PARLEY_ADMIN_KEY_RATE_LIMIT: "900",
      PARLEY_CONVERSATION_RATE_LIMIT: "5",
      PARLEY_SECRET_KEY: "a master key of at least thirty-two characters",
      PARLEY_LLM_TIMEOUT_MS: "1500",
      OPENAI_API_KEY: "sk-openai-test",
      OPENAI_BASE_URL: "http://127.0.0.1:8000/v1",
      OPENAI_ORG_ID: "org-test",
      OPENAI_PROJECT_ID: "proj-test",
      ANTHROPIC_API_KEY: "sk-ant-test",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:8001",
      OLLAMA_HOST: "gpu-box:11434",
      PARLEY_DATABASE_URL: "postgres://parley:secret@db:5432/parley",
      PARLEY_DATABASE_POOL_SIZE: "25",
      PARLEY_STATEMENT_TIMEOUT_MS: "5000",
      PARLEY_REDIS_URL: "redis://cache:6379",
      PARLEY_REDIS_FAIL_OPEN: "true",
    };
    // Every variable loadConfig reads is in the table above, so a new one cannot go untested.
    const read = new Set<string>();
    const watched = new Proxy(env, {
      get: (target, name) => {
        if (typeof name === "string") read.add(name);
        return target[name as string];
      },
    });
    const config = loadConfig(watched);
    expect([...read].sort()).toEqual(Object.keys(env).sort());
    expect(config).toEqual({
      databasePath: "/data/p.db",
      port: 9000,
      host: "0.0.0.0",
      embedder: { kind: "ollama", model: "my-embedder" },
      keyRequestsPerMinute: 120,
      adminKeyRequestsPerMinute: 900,
      conversationMessagesPerMinute: 5,
      secretKey: "a master key of at least thirty-two characters",
      providers: {
        openai: { apiKey: "sk-openai-test", baseURL: "http://127.0.0.1:8000/v1", organization: "org-test", project: "proj-test" },
        anthropic: { apiKey: "sk-ant-test", baseURL: "http://127.0.0.1:8001" },
        ollama: { host: "gpu-box:11434" },
        timeoutMs: 1500,
        embedderDimensions: 384,
      },
      env: watched,
      databaseUrl: "postgres://parley:secret@db:5432/parley",
      databasePoolSize: 25,
      statementTimeoutMs: 5000,
      redisUrl: "redis://cache:6379",
      redisFailOpen: true,
    });
    expect(loadConfig(env, { databasePath: "/flag.db", port: 1234, host: "::1" })).toMatchObject({ databasePath: "/flag.db", port: 1234, host: "::1" });
  });

  it.each([
    [{ PORT: "http" }, 'PORT must be a whole number from 0 to 65535 (got "http").'],
    [{ PORT: "70000" }, 'PORT must be a whole number from 0 to 65535 (got "70000").'],
    [{ PARLEY_ADMIN_KEY_RATE_LIMIT: "many" }, 'PARLEY_ADMIN_KEY_RATE_LIMIT must be a whole number from 1 to 1000000 (got "many").'],
    [{ PARLEY_CONVERSATION_RATE_LIMIT: "0" }, 'PARLEY_CONVERSATION_RATE_LIMIT must be a whole number from 1 to 1000000 (got "0").'],
    [{ OPENAI_BASE_URL: "localhost:8000" }, 'OPENAI_BASE_URL must be an http or https URL (got "localhost:8000").'],
    [{ PARLEY_EMBEDDER: "cohere:embed" }, /^PARLEY_EMBEDDER must be "local", "openai:<model>" or "ollama:<model>"/],
    [{ PARLEY_LLM_TIMEOUT_MS: "-5" }, /^PARLEY_LLM_TIMEOUT_MS must be a positive whole number/],
    [{ PARLEY_REDIS_URL: "http://cache:6379" }, "PARLEY_REDIS_URL must be a redis:// or rediss:// URL."],
    [{ PARLEY_REDIS_FAIL_OPEN: "maybe" }, 'PARLEY_REDIS_FAIL_OPEN must be true or false (got "maybe").'],
    [{ PARLEY_DATABASE_URL: "postgres://db/parley" }, "PARLEY_DATABASE_URL needs PARLEY_SECRET_KEY: every server process must sign webhooks with the same master key."],
    [{ PARLEY_DATABASE_POOL_SIZE: "0" }, 'PARLEY_DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0").'],
  ])("refuses %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
