import type { ChatModels } from "@parley/core";
import { createAnthropicChatModel, type AnthropicChatModelOptions } from "./anthropic-chat-model.js";
import type { CallSettingsOptions } from "./call-settings.js";
import { createOllamaChatModel, type OllamaChatModelOptions } from "./ollama-chat-model.js";
import { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";

/** Options of {@link createChatModels}: shared settings, then per provider (which win). */
export interface ChatModelsOptions extends CallSettingsOptions {
  openai?: OpenAIChatModelOptions;
  anthropic?: AnthropicChatModelOptions;
  ollama?: OllamaChatModelOptions;
}

/**
 * The registry of all three providers, configured from options and the environment. A provider
 * whose key is missing is still registered: its calls fail with `provider_failed` and the log
 * names the missing variable, so a deployment that uses only Ollama needs no cloud key.
 */
export function createChatModels(options: ChatModelsOptions = {}): ChatModels {
  const { openai, anthropic, ollama, ...shared } = options;
  return {
    openai: createOpenAIChatModel({ ...shared, ...openai }),
    anthropic: createAnthropicChatModel({ ...shared, ...anthropic }),
    ollama: createOllamaChatModel({ ...shared, ...ollama }),
  };
}
