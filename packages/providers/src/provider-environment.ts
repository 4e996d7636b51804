/** The environment variables Parley's providers read; tests inject their own. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The documented default deadline of one model call (docs/design.md §4). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** OpenAI's own endpoint; a custom base URL must include `/v1` as this one does. */
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

/** Anthropic's own endpoint; the SDK appends `/v1/messages`. */
export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";

/** Ollama's default address, the one its client uses when no host is given. */
export const OLLAMA_DEFAULT_HOST = "http://127.0.0.1:11434";

/** Everything the providers take from the environment, read in this one place. */
export interface ProviderEnvironment {
  openai: { apiKey: string | undefined; baseURL: string; organization: string | undefined; project: string | undefined };
  anthropic: { apiKey: string | undefined; baseURL: string };
  ollama: { host: string };
  timeoutMs: number;
  /** `PARLEY_EMBEDDER_DIMENSIONS`: the vector size of an embedding model Parley does not know. */
  embedderDimensions: number | undefined;
}

/**
 * Reads the variables of docs/design.md §7 from `env`. The resolved values are passed to the SDKs
 * explicitly, so the SDKs never fall back to `process.env` behind an injected environment.
 */
export function readProviderEnvironment(env: Environment = process.env): ProviderEnvironment {
  return {
    openai: {
      apiKey: nonEmpty(env.OPENAI_API_KEY),
      baseURL: nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_DEFAULT_BASE_URL,
      organization: nonEmpty(env.OPENAI_ORG_ID),
      project: nonEmpty(env.OPENAI_PROJECT_ID),
    },
    anthropic: {
      apiKey: nonEmpty(env.ANTHROPIC_API_KEY),
      baseURL: nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_DEFAULT_BASE_URL,
    },
    ollama: { host: nonEmpty(env.OLLAMA_HOST) ?? OLLAMA_DEFAULT_HOST },
    timeoutMs: parseTimeoutMs(env.PARLEY_LLM_TIMEOUT_MS),
    embedderDimensions: parseEmbedderDimensions(env.PARLEY_EMBEDDER_DIMENSIONS),
  };
}

/** `PARLEY_LLM_TIMEOUT_MS` as a positive integer; unset or blank gives the 60 s default. */
export function parseTimeoutMs(text: string | undefined): number {
  const trimmed = text?.trim();
  if (trimmed === undefined || trimmed === "") return DEFAULT_TIMEOUT_MS;
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || !Number.isSafeInteger(value) || value <= 0) {
    throw new Error(`PARLEY_LLM_TIMEOUT_MS must be a positive whole number of milliseconds, got "${trimmed}".`);
  }
  return value;
}

function parseEmbedderDimensions(text: string | undefined): number | undefined {
  const trimmed = text?.trim();
  if (trimmed === undefined || trimmed === "") return undefined;
  const value = Number(trimmed);
  if (!/^\d+$/.test(trimmed) || value <= 0) {
    throw new Error(`PARLEY_EMBEDDER_DIMENSIONS must be a positive whole number, got "${trimmed}".`);
  }
  return value;
}

/** A timeout given as an option must be a positive finite number of milliseconds. */
export function checkTimeoutMs(value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new Error(`timeoutMs must be a positive number of milliseconds, got ${value}.`);
  }
  return value;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === "" ? undefined : trimmed;
}
