import type { ChatModel, ChatReply, ChatRequest, ChatStreamPart, TokenUsage } from "@parley/core";
import { providerFailed } from "@parley/core";
import type OpenAI from "openai";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { createOpenAIClient, isOpenAIConnectionError, type OpenAIConnectionOptions } from "./openai-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { streamWithRetries } from "./stream-with-retries.js";
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

  const bodyOf = (request: ChatRequest) => ({ model: request.model, messages: toOpenAIMessages(request), [maxTokensField]: request.maxTokens });
  const callOptions = (request: ChatRequest) => ({
    provider: "OpenAI",
    ...settings,
    signal: request.signal,
    describeFailure: (error: unknown) => describeUpstreamFailure(error, isOpenAIConnectionError),
  });

  return {
    provider: "openai",
    async complete(request: ChatRequest): Promise<ChatReply> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body = bodyOf(request) as OpenAI.ChatCompletionCreateParamsNonStreaming;
      return callWithRetries(async (signal) => readReply(await client.chat.completions.create(body, { signal, maxRetries: 0 })), callOptions(request));
    },
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      // Usage comes in one last chunk, with no choices, only when asked for.
      const body = { ...bodyOf(request), stream: true, stream_options: { include_usage: true } } as OpenAI.ChatCompletionCreateParamsStreaming;
      yield* streamWithRetries(async function* (signal) {
        yield* readStream(await client.chat.completions.create(body, { signal, maxRetries: 0 }));
      }, callOptions(request));
    },
  };
}

async function* readStream(chunks: AsyncIterable<OpenAI.ChatCompletionChunk>): AsyncGenerator<ChatStreamPart> {
  let finished = false;
  let usage: TokenUsage | undefined;
  for await (const chunk of chunks) {
    if (typeof chunk !== "object" || chunk === null || !Array.isArray(chunk.choices)) throw new UnexpectedReplyError("An OpenAI stream chunk has no choices.");
    const choice = chunk.choices[0];
    const text = choice?.delta?.content;
    if (typeof text === "string" && text !== "") yield { type: "delta", text };
    if (choice?.finish_reason) finished = true;
    if (typeof chunk.usage?.prompt_tokens === "number" && typeof chunk.usage.completion_tokens === "number") {
      usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    }
  }
  // The SDK ends quietly when the body ends; a reply is whole only once a choice says why it stopped.
  if (!finished) throw new UnexpectedReplyError("The OpenAI stream ended before the reply was finished.");
  yield { type: "finish", ...(usage ? { usage } : {}) };
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
