import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.js";

describe("loadConfig", () => {
  it("has the defaults of docs/design.md §7, every field of them", () => {
    const env = {};
    // The whole object, strictly: a default that changes, or a field added without one here, fails.
    expect(loadConfig(env)).toStrictEqual({
      databasePath: "./parley.db",
      port: 8787,
      host: "127.0.0.1",
      embedder: { kind: "local" },
      keyRequestsPerMinute: 60,
      adminKeyRequestsPerMinute: 600,
      conversationMessagesPerMinute: 20,
      widgetSessionsPerHour: 10,
      widgetMessagesPerMinute: 30,
      trustProxy: false,
      allowPrivateUrls: false,
      maxUploadBytes: 25 * 1024 * 1024,
      secretKey: undefined,
      http: { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxHeaderBytes: 16_384, maxConnections: 1_000 },
      shutdownGraceMs: 10_000,
      unansweredAfterMs: 120_000,
      maxUploadRequestBytes: 100 * 1024 * 1024,
      maxStreamsPerKey: 5,
      ingestionsPerUser: 1,
      documents: { timeoutMs: 30_000, memoryMb: 192, maxPdfPages: 2_000, maxHtmlBytes: 5 * 1024 * 1024, maxDocxUnpackedBytes: 64 * 1024 * 1024 },
      providers: {
        openai: { apiKey: undefined, baseURL: "https://api.openai.com/v1", organization: undefined, project: undefined },
        anthropic: { apiKey: undefined, baseURL: "https://api.anthropic.com" },
        ollama: { host: "http://127.0.0.1:11434" },
        timeoutMs: 60_000,
        embedderDimensions: undefined,
      },
      env,
      databaseUrl: undefined,
      databasePoolSize: 10,
      statementTimeoutMs: 30_000,
      redisUrl: undefined,
      redisFailOpen: false,
      consoleDir: undefined,
      widgetDir: undefined,
    });
  });

  it("reads the HTTP limits and the shutdown grace", () => {
    const config = loadConfig({
      PARLEY_HEADERS_TIMEOUT_MS: "2000",
      PARLEY_REQUEST_TIMEOUT_MS: "5000",
      PARLEY_MAX_HEADER_BYTES: "8192",
      PARLEY_MAX_CONNECTIONS: "64",
      PARLEY_SHUTDOWN_GRACE_MS: "0",
      PARLEY_UNANSWERED_AFTER_MS: "5000",
    });
    expect(config.http).toEqual({ headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxHeaderBytes: 8192, maxConnections: 64 });
    expect(config.shutdownGraceMs).toBe(0);
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
      PARLEY_WIDGET_SESSIONS_PER_HOUR: "4",
      PARLEY_WIDGET_MESSAGES_PER_MINUTE: "6",
      PARLEY_TRUST_PROXY: "true",
      PARLEY_SECRET_KEY: "a master key of at least thirty-two characters",
      PARLEY_ALLOW_PRIVATE_URLS: "true",
      PARLEY_MAX_UPLOAD_BYTES: "1048576",
      PARLEY_MAX_UPLOAD_REQUEST_BYTES: "4194304",
      PARLEY_MAX_STREAMS_PER_KEY: "2",
      PARLEY_INGESTIONS_PER_USER: "3",
      PARLEY_DOCUMENT_TIMEOUT_MS: "10000",
      PARLEY_DOCUMENT_MEMORY_MB: "128",
      PARLEY_MAX_PDF_PAGES: "500",
      PARLEY_MAX_HTML_BYTES: "1048576",
      PARLEY_MAX_DOCX_UNPACKED_BYTES: "33554432",
      PARLEY_LLM_TIMEOUT_MS: "1500",
      PARLEY_HEADERS_TIMEOUT_MS: "2000",
      PARLEY_REQUEST_TIMEOUT_MS: "5000",
      PARLEY_MAX_HEADER_BYTES: "8192",
      PARLEY_MAX_CONNECTIONS: "64",
      PARLEY_SHUTDOWN_GRACE_MS: "0",
      PARLEY_UNANSWERED_AFTER_MS: "5000",
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
      PARLEY_CONSOLE_DIR: "/srv/parley-console",
      PARLEY_WIDGET_DIR: "/srv/parley-widget",
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
      widgetSessionsPerHour: 4,
      widgetMessagesPerMinute: 6,
      trustProxy: true,
      http: { headersTimeoutMs: 2000, requestTimeoutMs: 5000, maxHeaderBytes: 8192, maxConnections: 64 },
      shutdownGraceMs: 0,
      unansweredAfterMs: 5_000,
      allowPrivateUrls: true,
      maxUploadBytes: 1_048_576,
      maxUploadRequestBytes: 4_194_304,
      maxStreamsPerKey: 2,
      ingestionsPerUser: 3,
      documents: { timeoutMs: 10_000, memoryMb: 128, maxPdfPages: 500, maxHtmlBytes: 1_048_576, maxDocxUnpackedBytes: 33_554_432 },
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
      consoleDir: "/srv/parley-console",
      widgetDir: "/srv/parley-widget",
    });
    expect(loadConfig(env, { databasePath: "/flag.db", port: 1234, host: "::1" })).toMatchObject({ databasePath: "/flag.db", port: 1234, host: "::1" });
  });

  it.each([
    [{ PORT: "http" }, 'PORT must be a whole number from 0 to 65535 (got "http").'],
    [{ PORT: "70000" }, 'PORT must be a whole number from 0 to 65535 (got "70000").'],
    [{ PARLEY_ADMIN_KEY_RATE_LIMIT: "many" }, 'PARLEY_ADMIN_KEY_RATE_LIMIT must be a whole number from 1 to 1000000 (got "many").'],
    [{ PARLEY_CONVERSATION_RATE_LIMIT: "0" }, 'PARLEY_CONVERSATION_RATE_LIMIT must be a whole number from 1 to 1000000 (got "0").'],
    [{ PARLEY_ALLOW_PRIVATE_URLS: "yes" }, 'PARLEY_ALLOW_PRIVATE_URLS must be true or false (got "yes").'],
    [{ PARLEY_MAX_UPLOAD_BYTES: "25MiB" }, 'PARLEY_MAX_UPLOAD_BYTES must be a whole number from 1 to 1099511627776 (got "25MiB").'],
    [{ OPENAI_BASE_URL: "localhost:8000" }, 'OPENAI_BASE_URL must be an http or https URL (got "localhost:8000").'],
    [{ PARLEY_EMBEDDER: "cohere:embed" }, /^PARLEY_EMBEDDER must be "local", "openai:<model>" or "ollama:<model>"/],
    [{ PARLEY_LLM_TIMEOUT_MS: "-5" }, /^PARLEY_LLM_TIMEOUT_MS must be a positive whole number/],
    [{ PARLEY_REDIS_URL: "http://cache:6379" }, "PARLEY_REDIS_URL must be a redis:// or rediss:// URL."],
    [{ PARLEY_REDIS_FAIL_OPEN: "maybe" }, 'PARLEY_REDIS_FAIL_OPEN must be true or false (got "maybe").'],
    [{ PARLEY_DATABASE_URL: "postgres://db/parley" }, "PARLEY_DATABASE_URL needs PARLEY_SECRET_KEY: every server process must sign webhooks with the same master key."],
    [{ PARLEY_DATABASE_POOL_SIZE: "0" }, 'PARLEY_DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0").'],
    [{ PARLEY_MAX_CONNECTIONS: "0" }, 'PARLEY_MAX_CONNECTIONS must be a whole number from 1 to 1000000 (got "0").'],
    [{ PARLEY_MAX_HEADER_BYTES: "100" }, 'PARLEY_MAX_HEADER_BYTES must be a whole number from 1024 to 1048576 (got "100").'],
    [{ PARLEY_SHUTDOWN_GRACE_MS: "soon" }, 'PARLEY_SHUTDOWN_GRACE_MS must be a whole number from 0 to 3600000 (got "soon").'],
    [{ PARLEY_UNANSWERED_AFTER_MS: "-1" }, 'PARLEY_UNANSWERED_AFTER_MS must be a whole number from 0 to 86400000 (got "-1").'],
    [{ PARLEY_HEADERS_TIMEOUT_MS: "40000" }, "PARLEY_HEADERS_TIMEOUT_MS (40000) must not exceed PARLEY_REQUEST_TIMEOUT_MS (30000)."],
  ])("refuses %j with a message naming the variable", (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
