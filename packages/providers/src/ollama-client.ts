import { Ollama } from "ollama";
import type { CallSettingsOptions } from "./call-settings.js";
import { keepAliveFetch } from "./keep-alive-fetch.js";

/** Connection settings of the Ollama chat model and embedder. */
export interface OllamaConnectionOptions extends CallSettingsOptions {
  /** Default `OLLAMA_HOST` (which the ollama client itself ignores), else `http://127.0.0.1:11434`. */
  host?: string;
}

/**
 * A client whose every request carries `signal`. The ollama client has no timeout and passes no
 * signal on non-streaming calls, so a fetch that adds one is the only way to bound a call.
 * Clients are cheap (no connection is held), so each call gets its own.
 */
export function createBoundOllamaClient(host: string, signal: AbortSignal, baseFetch: typeof globalThis.fetch = keepAliveFetch): Ollama {
  const boundFetch: typeof globalThis.fetch = (input, init = {}) =>
    baseFetch(input, { ...init, signal: init.signal ? AbortSignal.any([init.signal, signal]) : signal });
  return new Ollama({ host, fetch: boundFetch });
}
