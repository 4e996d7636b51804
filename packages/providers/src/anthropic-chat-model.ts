import Anthropic, { APIConnectionError } from "@anthropic-ai/sdk";
import type { ChatModel, ChatReply, ChatRequest, ChatStreamPart } from "@parley/core";
import { providerFailed } from "@parley/core";
import { callWithRetries } from "./call-with-retries.js";
import { keepAliveFetch } from "./keep-alive-fetch.js";
import { resolveCallSettings, type CallSettingsOptions } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { streamWithRetries } from "./stream-with-retries.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createAnthropicChatModel}. */
export interface AnthropicChatModelOptions extends CallSettingsOptions {
  /** Default `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default `ANTHROPIC_BASE_URL`, else `https://api.anthropic.com` (without `/v1`: the SDK adds it). */
  baseURL?: string;
}

/** A ChatModel on Anthropic's messages API; the system text goes in the top-level `system` field. */
export function createAnthropicChatModel(options: AnthropicChatModelOptions = {}): ChatModel {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const apiKey = options.apiKey ?? environment.anthropic.apiKey;
  // Without a key the SDK would go looking for credential profiles on disk; fail each call instead.
  const client =
    apiKey === undefined || apiKey === ""
      ? new Error("No Anthropic API key: set ANTHROPIC_API_KEY.")
      : new Anthropic({
          apiKey,
          authToken: null,
          baseURL: options.baseURL ?? environment.anthropic.baseURL,
          maxRetries: 0,
          // Our deadline aborts first. Setting a timeout also lets a large max_tokens go unstreamed.
          timeout: settings.timeoutMs + 1_000,
          fetch: options.fetch ?? keepAliveFetch,
        });

  const bodyOf = (request: ChatRequest): Anthropic.MessageCreateParamsNonStreaming => ({
    model: request.model,
    max_tokens: request.maxTokens,
    ...(request.system === "" ? {} : { system: request.system }),
    messages: alternateTurns(request.messages),
  });
  const callOptions = (request: ChatRequest) => ({
    provider: "Anthropic",
    ...settings,
    signal: request.signal,
    // 529 "overloaded" is a 5xx and so is retried like 500 and 503.
    describeFailure: (error: unknown) => describeUpstreamFailure(error, (cause) => cause instanceof APIConnectionError),
  });

  return {
    provider: "anthropic",
    async complete(request: ChatRequest): Promise<ChatReply> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body = bodyOf(request);
      return callWithRetries(async (signal) => readReply(await client.messages.create(body, { signal, maxRetries: 0 })), callOptions(request));
    },
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body = bodyOf(request);
      yield* streamWithRetries((signal) => readStream(client.messages.stream(body, { signal, maxRetries: 0 })), callOptions(request));
    },
  };
}

/** Text deltas of the message stream's events; usage from `message_start` (input) and `message_delta` (output). */
async function* readStream(events: AsyncIterable<Anthropic.MessageStreamEvent>): AsyncGenerator<ChatStreamPart> {
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  let stopped = false;
  for await (const event of events) {
    if (event.type === "message_start") inputTokens = event.message.usage?.input_tokens;
    else if (event.type === "content_block_delta" && event.delta.type === "text_delta" && event.delta.text !== "") yield { type: "delta", text: event.delta.text };
    else if (event.type === "message_delta") outputTokens = event.usage?.output_tokens ?? outputTokens;
    else if (event.type === "message_stop") stopped = true;
  }
  if (!stopped) throw new UnexpectedReplyError("The Anthropic stream ended before message_stop.");
  const usage = typeof inputTokens === "number" && typeof outputTokens === "number" ? { usage: { inputTokens, outputTokens } } : {};
  yield { type: "finish", ...usage };
}

function readReply(message: Anthropic.Message): ChatReply {
  if (typeof message !== "object" || message === null || !Array.isArray(message.content)) {
    throw new UnexpectedReplyError("The Anthropic reply has no content.");
  }
  const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  const usage = message.usage;
  if (typeof usage?.input_tokens !== "number" || typeof usage.output_tokens !== "number") return { text };
  return { text, usage: { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens } };
}
