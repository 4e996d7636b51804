import type { Embedder } from "@parley/core";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { batchingEmbedder, knownEmbeddingPrefixes, resolveDimensions, SEMANTIC_FUSION, toFloat32Vectors, type EmbeddingModelOptions } from "./embedding-models.js";
import { createBoundOllamaClient, type OllamaConnectionOptions } from "./ollama-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createOllamaEmbedder}. */
export interface OllamaEmbedderOptions extends OllamaConnectionOptions, EmbeddingModelOptions {}

/** A local model embeds a batch in one pass; 32 keeps each request short. */
const DEFAULT_MAX_BATCH_SIZE = 32;

/**
 * An Embedder on Ollama's `/api/embed`. Known models get their query and document prefixes
 * (`search_query: ` / `search_document: ` for nomic-embed-text).
 */
export function createOllamaEmbedder(options: OllamaEmbedderOptions): Embedder {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const host = options.host ?? environment.ollama.host;
  const dimensions = resolveDimensions(options.model, options.dimensions);

  return batchingEmbedder(
    {
      // `name` and `name:latest` are the same model, and so the same vector space.
      id: `ollama:${options.model.replace(/:latest$/, "")}`,
      dimensions,
      maxBatchSize: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      fusion: options.fusion ?? SEMANTIC_FUSION,
      prefixes: options.prefixes ?? knownEmbeddingPrefixes(options.model),
    },
    (texts) =>
      callWithRetries(
        async (signal) => {
          const response = await createBoundOllamaClient(host, signal, options.fetch).embed({ model: options.model, input: texts });
          return toFloat32Vectors(response?.embeddings, texts.length, dimensions);
        },
        { provider: "Ollama", ...settings, describeFailure: (error) => describeUpstreamFailure(error) },
      ),
  );
}
