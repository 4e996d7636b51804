export { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
export { createAnthropicChatModel, type AnthropicChatModelOptions } from "./anthropic-chat-model.js";
export { createOllamaChatModel, type OllamaChatModelOptions } from "./ollama-chat-model.js";
export { createChatModels, type ChatModelsOptions } from "./create-chat-models.js";
export { createOpenAIEmbedder, type OpenAIEmbedderOptions } from "./openai-embedder.js";
export { createOllamaEmbedder, type OllamaEmbedderOptions } from "./ollama-embedder.js";
export {
  createRemoteEmbedder,
  parseEmbedderSpec,
  type EmbedderSpec,
  type RemoteEmbedderOptions,
  type RemoteEmbedderSpec,
} from "./embedder-spec.js";
export {
  knownEmbeddingDimensions,
  knownEmbeddingPrefixes,
  SEMANTIC_FUSION,
  type EmbeddingModelOptions,
  type EmbeddingPrefixes,
} from "./embedding-models.js";
export { DEFAULT_RETRY_POLICY, DeadlineExceededError, type RetryPolicy } from "./call-with-retries.js";
export type { CallSettingsOptions } from "./call-settings.js";
export type { OpenAIConnectionOptions } from "./openai-client.js";
export type { OllamaConnectionOptions } from "./ollama-client.js";
export {
  ANTHROPIC_DEFAULT_BASE_URL,
  DEFAULT_TIMEOUT_MS,
  OLLAMA_DEFAULT_HOST,
  OPENAI_DEFAULT_BASE_URL,
  readProviderEnvironment,
  type Environment,
  type ProviderEnvironment,
} from "./provider-environment.js";
