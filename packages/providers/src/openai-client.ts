import OpenAI, { APIConnectionError } from "openai";
import type { CallSettingsOptions } from "./call-settings.js";
import { keepAliveFetch } from "./keep-alive-fetch.js";
import type { ProviderEnvironment } from "./provider-environment.js";

/** Connection settings of the OpenAI chat model and embedder. */
export interface OpenAIConnectionOptions extends CallSettingsOptions {
  /** Default `OPENAI_API_KEY`. Required by the SDK; any non-empty value for a server that checks none. */
  apiKey?: string;
  /** Default `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. Must end in `/v1` for compatible servers. */
  baseURL?: string;
}

/**
 * The SDK client, or the reason there is none. A missing key must not stop a server that only
 * uses other providers from starting, so it turns into a failure of each call instead.
 */
export function createOpenAIClient(
  options: OpenAIConnectionOptions,
  environment: ProviderEnvironment,
  timeoutMs: number,
): OpenAI | Error {
  const apiKey = options.apiKey ?? environment.openai.apiKey;
  if (apiKey === undefined || apiKey === "") {
    return new Error("No OpenAI API key: set OPENAI_API_KEY (any non-empty value for a server that checks none).");
  }
  return new OpenAI({
    apiKey,
    baseURL: options.baseURL ?? environment.openai.baseURL,
    organization: environment.openai.organization ?? null,
    project: environment.openai.project ?? null,
    // Retries are ours (callWithRetries), bounded by one deadline; the SDK's would multiply it.
    maxRetries: 0,
    // Our deadline aborts first; the SDK's own timeout is only a backstop.
    timeout: timeoutMs + 1_000,
    // Reused for every call; node:http keep-alive underneath unless a test injects its own.
    fetch: options.fetch ?? keepAliveFetch,
  });
}

/** Whether an error is the SDK's failure to connect (refused, reset, timed out). */
export const isOpenAIConnectionError = (error: unknown) => error instanceof APIConnectionError;
