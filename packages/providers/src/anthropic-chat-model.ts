import Anthropic, { APIConnectionError } from "@anthropic-ai/sdk";
import type { ChatModel, ChatReply, ChatRequest } from "@parley/core";
import { providerFailed } from "@parley/core";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings, type CallSettingsOptions } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { readProviderEnvironment } from "./provider-environment.js";
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
          ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        });

  return {
    provider: "anthropic",
    async complete(request: ChatRequest): Promise<ChatReply> {
      if (client instanceof Error) throw providerFailed({ cause: client, retryable: false });
      const body: Anthropic.MessageCreateParamsNonStreaming = {
        model: request.model,
        max_tokens: request.maxTokens,
        ...(request.system === "" ? {} : { system: request.system }),
        messages: alternateTurns(request.messages),
      };
      return callWithRetries(async (signal) => readReply(await client.messages.create(body, { signal, maxRetries: 0 })), {
        provider: "Anthropic",
        ...settings,
        signal: request.signal,
        // 529 "overloaded" is a 5xx and so is retried like 500 and 503.
        describeFailure: (error) => describeUpstreamFailure(error, (cause) => cause instanceof APIConnectionError),
      });
    },
  };
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
