import type { ChatModel, ChatReply, ChatRequest } from "@parley/core";
import { providerFailed } from "@parley/core";
import type OpenAI from "openai";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { createOpenAIClient, isOpenAIConnectionError, type OpenAIConnectionOptions } from "./openai-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createOpenAIChatModel}. */
export interface OpenAIChatModelOptions extends OpenAIConnectionOptions {
  /**
   * The body field that carries the reply limit. OpenAI's newer models accept only
   * `max_completion_tokens`; OpenAI-compatible servers know `max_tokens`. Default: the first for
   * api.openai.com, the second for any other base URL.
   */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
}

/** A ChatModel on OpenAI's chat completions API, or on any OpenAI-compatible server. */
export function createOpenAIChatModel(options: OpenAIChatModelOptions = {}): ChatModel {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const client = createOpenAIClient(options, environment, settings.timeoutMs);
  const baseURL = options.baseURL ?? environment.openai.baseURL;
  const maxTokensField = options.maxTokensField ?? (isOpenAIsOwnEndpoint(baseURL) ? "max_completion_tokens" : "max_tokens");

  return {
    provider: "openai",
    async complete(request: ChatRequest): Promise<ChatReply> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body = {
        model: request.model,
        messages: toOpenAIMessages(request),
        [maxTokensField]: request.maxTokens,
      } as OpenAI.ChatCompletionCreateParamsNonStreaming;
      return callWithRetries(
        async (signal) => readReply(await client.chat.completions.create(body, { signal, maxRetries: 0 })),
        {
          provider: "OpenAI",
          ...settings,
          signal: request.signal,
          describeFailure: (error) => describeUpstreamFailure(error, isOpenAIConnectionError),
        },
      );
    },
  };
}

function toOpenAIMessages(request: ChatRequest): OpenAI.ChatCompletionMessageParam[] {
  const system: OpenAI.ChatCompletionMessageParam[] = request.system === "" ? [] : [{ role: "system", content: request.system }];
  return [...system, ...alternateTurns(request.messages)];
}

function readReply(completion: OpenAI.ChatCompletion): ChatReply {
  // Without a JSON content type the SDK hands back the raw text, so check the shape.
  if (typeof completion !== "object" || completion === null || !Array.isArray(completion.choices)) {
    throw new UnexpectedReplyError("The OpenAI reply has no choices.");
  }
  const text = completion.choices[0]?.message?.content ?? "";
  const usage = completion.usage;
  // Some compatible servers send no usage, or a partial one.
  if (typeof usage?.prompt_tokens !== "number" || typeof usage.completion_tokens !== "number") return { text };
  return { text, usage: { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } };
}

function isOpenAIsOwnEndpoint(baseURL: string): boolean {
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}
