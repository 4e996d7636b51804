import type { ChatModel, ChatReply, ChatRequest } from "@parley/core";
import type { ChatResponse, Message } from "ollama";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { createBoundOllamaClient, type OllamaConnectionOptions } from "./ollama-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createOllamaChatModel}. */
export type OllamaChatModelOptions = OllamaConnectionOptions;

/** A ChatModel on a locally hosted Ollama (`/api/chat`, not streamed). */
export function createOllamaChatModel(options: OllamaChatModelOptions = {}): ChatModel {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const host = options.host ?? environment.ollama.host;

  return {
    provider: "ollama",
    async complete(request: ChatRequest): Promise<ChatReply> {
      const system: Message[] = request.system === "" ? [] : [{ role: "system", content: request.system }];
      const body = {
        model: request.model,
        messages: [...system, ...alternateTurns(request.messages)],
        stream: false as const,
        // Ollama's name for the reply limit.
        options: { num_predict: request.maxTokens },
      };
      return callWithRetries(
        async (signal) => readReply(await createBoundOllamaClient(host, signal, options.fetch).chat(body)),
        {
          provider: "Ollama",
          ...settings,
          signal: request.signal,
          // ollama throws fetch's own TypeError on connection failures; its cause holds the code.
          describeFailure: (error) => describeUpstreamFailure(error),
        },
      );
    },
  };
}

function readReply(response: ChatResponse): ChatReply {
  if (typeof response !== "object" || response === null || typeof response.message !== "object" || response.message === null) {
    throw new UnexpectedReplyError("The Ollama reply has no message.");
  }
  const text = typeof response.message.content === "string" ? response.message.content : "";
  const { prompt_eval_count: inputTokens, eval_count: outputTokens } = response;
  // Ollama leaves prompt_eval_count out when the whole prompt came from its cache.
  if (typeof outputTokens !== "number") return { text };
  return { text, usage: { inputTokens: typeof inputTokens === "number" ? inputTokens : 0, outputTokens } };
}
