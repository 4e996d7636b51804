import type { Embedder } from "@parley/core";
import { createOllamaEmbedder, type OllamaEmbedderOptions } from "./ollama-embedder.js";
import { createOpenAIEmbedder, type OpenAIEmbedderOptions } from "./openai-embedder.js";
import { readProviderEnvironment, type Environment } from "./provider-environment.js";

/** What `PARLEY_EMBEDDER` names: the core's built-in embedder, or a model behind a provider. */
export type EmbedderSpec = { kind: "local" } | { kind: "openai"; model: string } | { kind: "ollama"; model: string };

/** A spec that names a remote model. */
export type RemoteEmbedderSpec = Extract<EmbedderSpec, { kind: "openai" | "ollama" }>;

const ACCEPTED_FORMS = '"local", "openai:<model>" or "ollama:<model>" (e.g. openai:text-embedding-3-small, ollama:nomic-embed-text)';

/**
 * Parses `PARLEY_EMBEDDER` (docs/design.md §7). Unset or blank means `local`: the core's offline hashing
 * embedder, which the server resolves itself. Ollama model names may carry a tag
 * (`ollama:nomic-embed-text:v1.5`): only the first colon separates the kind.
 */
export function parseEmbedderSpec(text: string | undefined): EmbedderSpec {
  const trimmed = text?.trim() ?? "";
  if (trimmed === "" || trimmed === "local") return { kind: "local" };
  const colon = trimmed.indexOf(":");
  const kind = colon === -1 ? trimmed : trimmed.slice(0, colon);
  const model = colon === -1 ? "" : trimmed.slice(colon + 1).trim();
  if ((kind === "openai" || kind === "ollama") && model !== "") return { kind, model };
  if (kind === "openai" || kind === "ollama") {
    throw new Error(`PARLEY_EMBEDDER "${trimmed}" names no model: use ${ACCEPTED_FORMS}.`);
  }
  throw new Error(`PARLEY_EMBEDDER must be ${ACCEPTED_FORMS}; got "${trimmed}".`);
}

/** Connection and tuning options passed on to the remote embedder (the model comes from the spec). */
export type RemoteEmbedderOptions = Omit<OpenAIEmbedderOptions, "model"> & Omit<OllamaEmbedderOptions, "model">;

/**
 * The embedder a remote spec names, configured from `env` (keys, base URL, host, timeout and
 * `PARLEY_EMBEDDER_DIMENSIONS` for a model of unknown size). Explicit options win.
 */
export function createRemoteEmbedder(spec: RemoteEmbedderSpec, env: Environment = process.env, options: RemoteEmbedderOptions = {}): Embedder {
  const dimensions = options.dimensions ?? readProviderEnvironment(env).embedderDimensions;
  const { host, baseURL, apiKey, ...common } = options;
  const shared = { ...common, env, model: spec.model, ...(dimensions === undefined ? {} : { dimensions }) };
  if (spec.kind === "openai") {
    return createOpenAIEmbedder({ ...shared, ...(baseURL === undefined ? {} : { baseURL }), ...(apiKey === undefined ? {} : { apiKey }) });
  }
  return createOllamaEmbedder({ ...shared, ...(host === undefined ? {} : { host }) });
}
