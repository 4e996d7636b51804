import type { Embedder } from "@parley/core";
import { providerFailed } from "@parley/core";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { batchingEmbedder, knownEmbeddingDimensions, knownEmbeddingPrefixes, resolveDimensions, SEMANTIC_FUSION, toFloat32Vectors, type EmbeddingModelOptions } from "./embedding-models.js";
import { createOpenAIClient, isOpenAIConnectionError, type OpenAIConnectionOptions } from "./openai-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createOpenAIEmbedder}. */
export interface OpenAIEmbedderOptions extends OpenAIConnectionOptions, EmbeddingModelOptions {}

/** OpenAI's limit is 2,048 inputs (and 300,000 tokens) per request; 128 chunks stay well inside both. */
const DEFAULT_MAX_BATCH_SIZE = 128;

/**
 * An Embedder on `/v1/embeddings` (OpenAI or a compatible server). A `dimensions` below a
 * text-embedding-3 model's native size is sent to the API, which shortens the vectors; the id
 * then records it, since such vectors form another space.
 */
export function createOpenAIEmbedder(options: OpenAIEmbedderOptions): Embedder {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const client = createOpenAIClient(options, environment, settings.timeoutMs);
  const dimensions = resolveDimensions(options.model, options.dimensions);
  const native = knownEmbeddingDimensions(options.model);
  const shortened = native !== undefined && dimensions !== native && options.model.startsWith("text-embedding-3");

  return batchingEmbedder(
    {
      id: shortened ? `openai:${options.model}?dimensions=${dimensions}` : `openai:${options.model}`,
      dimensions,
      maxBatchSize: options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE,
      fusion: options.fusion ?? SEMANTIC_FUSION,
      prefixes: options.prefixes ?? knownEmbeddingPrefixes(options.model),
    },
    async (texts) => {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body = {
        model: options.model,
        input: texts,
        // The SDK asks for base64 unless told otherwise; compatible servers may ignore that and
        // send floats, which the SDK would then silently decode as empty vectors.
        encoding_format: "float" as const,
        ...(shortened ? { dimensions } : {}),
      };
      return callWithRetries(
        async (signal) => {
          const response = await client.embeddings.create(body, { signal, maxRetries: 0 });
          const data = Array.isArray(response?.data) ? [...response.data].sort((a, b) => a.index - b.index) : undefined;
          return toFloat32Vectors(data?.map((item) => item.embedding), texts.length, dimensions);
        },
        {
          provider: "OpenAI",
          ...settings,
          describeFailure: (error) => describeUpstreamFailure(error, isOpenAIConnectionError),
        },
      );
    },
  );
}
