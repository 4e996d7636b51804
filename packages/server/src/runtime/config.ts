import type { HttpLimits } from "../http/connection-limits.js";
import { redactUrl, UNANSWERED_AFTER_MS } from "@parley/core";
import { parseEmbedderSpec, readProviderEnvironment, type EmbedderSpec, type Environment, type ProviderEnvironment } from "@parley/providers";

/** The server's configuration, read from the environment (docs/design.md §7) and validated once, at start-up. */
export interface ServerConfig {
  databasePath: string;
  port: number;
  host: string;
  embedder: EmbedderSpec;
  keyRequestsPerMinute: number;
  /** `PARLEY_ADMIN_KEY_RATE_LIMIT`: requests per admin-scoped key in any 60 s (docs/design.md §9). */
  adminKeyRequestsPerMinute: number;
  conversationMessagesPerMinute: number;
  /** `PARLEY_WIDGET_SESSIONS_PER_HOUR`: new widget sessions one client address may start in any hour (default 10; docs/design.md §14). */
  widgetSessionsPerHour: number;
  /** `PARLEY_WIDGET_MESSAGES_PER_MINUTE`: widget messages one client address may send in any 60 s (default 30). */
  widgetMessagesPerMinute: number;
  /** `PARLEY_TRUST_PROXY=true`: the client address is the first `X-Forwarded-For` hop (behind a reverse proxy). */
  trustProxy: boolean;
  /** `PARLEY_ALLOW_PRIVATE_URLS=true`: URLs may reach loopback, private and link-local addresses (docs/design.md §12). */
  allowPrivateUrls: boolean;
  /** `PARLEY_MAX_UPLOAD_BYTES`: the largest uploaded file (default 25 MiB). */
  maxUploadBytes: number;
  /** `PARLEY_MAX_UPLOAD_REQUEST_BYTES`: all the files of one upload request together (default 100 MiB). */
  maxUploadRequestBytes: number;
  /** `PARLEY_MAX_STREAMS_PER_KEY`: event streams one API key holds open at once, per process (default 5). */
  maxStreamsPerKey: number;
  /** `PARLEY_INGESTIONS_PER_USER`: ingestions of one user read at once, across processes (default 1). */
  ingestionsPerUser: number;
  /** Limits of the reader processes that parse documents (docs/configuration.md, "Documents"). */
  documents: DocumentLimits;
  /** `PARLEY_SECRET_KEY`: the master key of webhook signing secrets; unset means the key file beside the database. */
  secretKey: string | undefined;
  /** Keys, base URLs, the Ollama host and the model deadline, as the providers read them. */
  providers: ProviderEnvironment;
  /** Timeouts and caps of the HTTP edge (docs/configuration.md, "HTTP limits"). */
  http: HttpLimits;
  /** `PARLEY_SHUTDOWN_GRACE_MS`: how long a stop waits for requests in flight before cutting them. */
  shutdownGraceMs: number;
  /** `PARLEY_UNANSWERED_AFTER_MS`: how long after its start the server marks the conversations a stopped process left unanswered (default 120000). */
  unansweredAfterMs: number;
  /** The environment itself, handed to the provider adapters. */
  env: Environment;
  /** `PARLEY_DATABASE_URL`: PostgreSQL instead of SQLite (docs/design.md §13); unset means SQLite at `databasePath`. */
  databaseUrl: string | undefined;
  /** `PARLEY_DATABASE_POOL_SIZE`: connections each process opens at most (default 10). */
  databasePoolSize: number;
  /** `PARLEY_STATEMENT_TIMEOUT_MS`: PostgreSQL cancels a statement running longer (default 30000). */
  statementTimeoutMs: number;
  /** `PARLEY_REDIS_URL`: the rate limiters on Redis, shared by every process; unset means in process memory. */
  redisUrl: string | undefined;
  /** `PARLEY_REDIS_FAIL_OPEN=true`: let requests through unlimited while Redis is down (default: refuse with 503). */
  redisFailOpen: boolean;
  /** `PARLEY_CONSOLE_DIR`: the console's build folder to serve; unset means the installed `@parley/console`'s. */
  consoleDir: string | undefined;
  /** `PARLEY_WIDGET_DIR`: the chat widget's build folder to serve; unset means the installed `@parley/widget`'s. */
  widgetDir: string | undefined;
}

/** What one uploaded or fetched document may cost its reader. */
export interface DocumentLimits {
  /** `PARLEY_DOCUMENT_TIMEOUT_MS`: wall-clock time to parse one document (default 30 s). */
  timeoutMs: number;
  /** `PARLEY_DOCUMENT_MEMORY_MB`: heap of the reader process that parses it (default 192 MiB). */
  memoryMb: number;
  /** `PARLEY_MAX_PDF_PAGES` (default 2,000). */
  maxPdfPages: number;
  /** `PARLEY_MAX_HTML_BYTES` (default 5 MiB). */
  maxHtmlBytes: number;
  /** `PARLEY_MAX_DOCX_UNPACKED_BYTES`: what a DOCX may really unpack to (default 64 MiB). */
  maxDocxUnpackedBytes: number;
}

/** A configuration value that cannot be used; the message names the variable and the problem. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const present = (value: string | undefined) => (value === undefined || value.trim() === "" ? undefined : value.trim());

function wholeNumber(env: Environment, name: string, fallback: number, minimum: number, maximum: number): number {
  const text = present(env[name]);
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < minimum || value > maximum) {
    throw new ConfigError(`${name} must be a whole number from ${minimum} to ${maximum} (got "${text}").`);
  }
  return value;
}

function flag(env: Environment, name: string): boolean {
  const text = present(env[name])?.toLowerCase();
  if (text === undefined || text === "false") return false;
  if (text === "true") return true;
  throw new ConfigError(`${name} must be true or false (got "${env[name]}").`);
}

function httpUrl(env: Environment, name: string): void {
  const text = present(env[name]);
  if (text === undefined) return;
  let protocol = "";
  try {
    protocol = new URL(text).protocol;
  } catch {
    // reported below
  }
  if (protocol !== "http:" && protocol !== "https:") throw new ConfigError(`${name} must be an http or https URL (got "${text}").`);
}

/** A URL variable that must use one of `protocols`; the message never shows a password. */
function serviceUrl(env: Environment, name: string, protocols: string[]): string | undefined {
  const text = present(env[name]);
  if (text === undefined) return undefined;
  let protocol = "";
  try {
    protocol = new URL(text).protocol;
  } catch {
    // reported below
  }
  if (!protocols.includes(protocol)) throw new ConfigError(`${name} must be a ${protocols.map((each) => `${each}//`).join(" or ")} URL.`);
  return text;
}

function secretKey(env: Environment): string | undefined {
  const text = present(env.PARLEY_SECRET_KEY);
  // The value is a secret: the message gives its length, never the value.
  if (text !== undefined && Buffer.byteLength(text) < 32) throw new ConfigError(`PARLEY_SECRET_KEY must be at least 32 characters long (got ${text.length}).`);
  return text;
}

function httpLimits(env: Environment): HttpLimits {
  const headersTimeoutMs = wholeNumber(env, "PARLEY_HEADERS_TIMEOUT_MS", 10_000, 100, 3_600_000);
  const requestTimeoutMs = wholeNumber(env, "PARLEY_REQUEST_TIMEOUT_MS", 30_000, 100, 3_600_000);
  // Node refuses a headers timeout longer than the whole request's.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`PARLEY_HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed PARLEY_REQUEST_TIMEOUT_MS (${requestTimeoutMs}).`);
  }
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    maxHeaderBytes: wholeNumber(env, "PARLEY_MAX_HEADER_BYTES", 16_384, 1_024, 1_048_576),
    maxConnections: wholeNumber(env, "PARLEY_MAX_CONNECTIONS", 1_000, 1, 1_000_000),
  };
}

/** The database a configuration opens, as the banner and the command line name it: the SQLite file, or the PostgreSQL URL without its password. */
export function describeDatabase(config: Pick<ServerConfig, "databasePath" | "databaseUrl">): string {
  return config.databaseUrl === undefined ? config.databasePath : `PostgreSQL at ${redactUrl(config.databaseUrl)}`;
}

/** Reads and checks the configuration. Command-line flags (overrides) win over the environment. */
export function loadConfig(env: Environment = process.env, overrides: Partial<Pick<ServerConfig, "databasePath" | "port" | "host">> = {}): ServerConfig {
  httpUrl(env, "OPENAI_BASE_URL");
  httpUrl(env, "ANTHROPIC_BASE_URL");
  // Several processes share one PostgreSQL: each must sign webhooks with the same master key,
  // which a key file beside each process's SQLite path would not give.
  if (present(env.PARLEY_DATABASE_URL) !== undefined && present(env.PARLEY_SECRET_KEY) === undefined) {
    throw new ConfigError("PARLEY_DATABASE_URL needs PARLEY_SECRET_KEY: every server process must sign webhooks with the same master key.");
  }
  try {
    return {
      databasePath: overrides.databasePath ?? present(env.PARLEY_DB) ?? "./parley.db",
      port: overrides.port ?? wholeNumber(env, "PORT", 8787, 0, 65_535),
      host: overrides.host ?? present(env.HOST) ?? "127.0.0.1",
      embedder: parseEmbedderSpec(env.PARLEY_EMBEDDER),
      keyRequestsPerMinute: wholeNumber(env, "PARLEY_KEY_RATE_LIMIT", 60, 1, 1_000_000),
      adminKeyRequestsPerMinute: wholeNumber(env, "PARLEY_ADMIN_KEY_RATE_LIMIT", 600, 1, 1_000_000),
      conversationMessagesPerMinute: wholeNumber(env, "PARLEY_CONVERSATION_RATE_LIMIT", 20, 1, 1_000_000),
      widgetSessionsPerHour: wholeNumber(env, "PARLEY_WIDGET_SESSIONS_PER_HOUR", 10, 1, 1_000_000),
      widgetMessagesPerMinute: wholeNumber(env, "PARLEY_WIDGET_MESSAGES_PER_MINUTE", 30, 1, 1_000_000),
      trustProxy: flag(env, "PARLEY_TRUST_PROXY"),
      allowPrivateUrls: flag(env, "PARLEY_ALLOW_PRIVATE_URLS"),
      maxUploadBytes: wholeNumber(env, "PARLEY_MAX_UPLOAD_BYTES", 25 * 1024 * 1024, 1, 2 ** 40),
      maxUploadRequestBytes: wholeNumber(env, "PARLEY_MAX_UPLOAD_REQUEST_BYTES", 100 * 1024 * 1024, 1, 2 ** 40),
      maxStreamsPerKey: wholeNumber(env, "PARLEY_MAX_STREAMS_PER_KEY", 5, 1, 10_000),
      ingestionsPerUser: wholeNumber(env, "PARLEY_INGESTIONS_PER_USER", 1, 1, 1_000),
      documents: {
        timeoutMs: wholeNumber(env, "PARLEY_DOCUMENT_TIMEOUT_MS", 30_000, 100, 3_600_000),
        memoryMb: wholeNumber(env, "PARLEY_DOCUMENT_MEMORY_MB", 192, 16, 65_536),
        maxPdfPages: wholeNumber(env, "PARLEY_MAX_PDF_PAGES", 2_000, 1, 1_000_000),
        maxHtmlBytes: wholeNumber(env, "PARLEY_MAX_HTML_BYTES", 5 * 1024 * 1024, 1_024, 2 ** 32),
        maxDocxUnpackedBytes: wholeNumber(env, "PARLEY_MAX_DOCX_UNPACKED_BYTES", 64 * 1024 * 1024, 1_024, 2 ** 40),
      },
      secretKey: secretKey(env),
      http: httpLimits(env),
      shutdownGraceMs: wholeNumber(env, "PARLEY_SHUTDOWN_GRACE_MS", 10_000, 0, 3_600_000),
      unansweredAfterMs: wholeNumber(env, "PARLEY_UNANSWERED_AFTER_MS", UNANSWERED_AFTER_MS, 0, 86_400_000),
      providers: readProviderEnvironment(env),
      env,
      databaseUrl: serviceUrl(env, "PARLEY_DATABASE_URL", ["postgres:", "postgresql:"]),
      databasePoolSize: wholeNumber(env, "PARLEY_DATABASE_POOL_SIZE", 10, 1, 1_000),
      statementTimeoutMs: wholeNumber(env, "PARLEY_STATEMENT_TIMEOUT_MS", 30_000, 0, 86_400_000),
      redisUrl: serviceUrl(env, "PARLEY_REDIS_URL", ["redis:", "rediss:"]),
      redisFailOpen: flag(env, "PARLEY_REDIS_FAIL_OPEN"),
      consoleDir: present(env.PARLEY_CONSOLE_DIR),
      widgetDir: present(env.PARLEY_WIDGET_DIR),
    };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}
