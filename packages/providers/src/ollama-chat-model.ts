import type { ChatModel, ChatReply, ChatRequest, ChatStreamPart } from "@parley/core";
import type { ChatResponse, Message } from "ollama";
import { callWithRetries } from "./call-with-retries.js";
import { resolveCallSettings } from "./call-settings.js";
import { alternateTurns, UnexpectedReplyError } from "./chat-turns.js";
import { createBoundOllamaClient, type OllamaConnectionOptions } from "./ollama-client.js";
import { readProviderEnvironment } from "./provider-environment.js";
import { streamWithRetries } from "./stream-with-retries.js";
import { describeUpstreamFailure } from "./upstream-failure.js";

/** Options of {@link createOllamaChatModel}. */
export type OllamaChatModelOptions = OllamaConnectionOptions;

/** A ChatModel on a locally hosted Ollama (`/api/chat`). */
export function createOllamaChatModel(options: OllamaChatModelOptions = {}): ChatModel {
  const environment = readProviderEnvironment(options.env);
  const settings = resolveCallSettings(options, environment.timeoutMs);
  const host = options.host ?? environment.ollama.host;

  const bodyOf = (request: ChatRequest) => {
    const system: Message[] = request.system === "" ? [] : [{ role: "system", content: request.system }];
    // `num_predict` is Ollama's name for the reply limit.
    return { model: request.model, messages: [...system, ...alternateTurns(request.messages)], options: { num_predict: request.maxTokens } };
  };
  const callOptions = (request: ChatRequest) => ({
    provider: "Ollama",
    ...settings,
    signal: request.signal,
    // ollama throws fetch's own TypeError on connection failures; its cause holds the code.
    describeFailure: (error: unknown) => describeUpstreamFailure(error),
  });

  return {
    provider: "ollama",
    async complete(request: ChatRequest): Promise<ChatReply> {
      const body = { ...bodyOf(request), stream: false as const };
      return callWithRetries(async (signal) => readReply(await createBoundOllamaClient(host, signal, options.fetch).chat(body)), callOptions(request));
    },
    async *stream(request: ChatRequest): AsyncGenerator<ChatStreamPart> {
      const body = { ...bodyOf(request), stream: true as const };
      yield* streamWithRetries(async function* (signal) {
        yield* readStream(await createBoundOllamaClient(host, signal, options.fetch).chat(body));
      }, callOptions(request));
    },
  };
}

/**
 * Text of each NDJSON line; the line with `done: true` carries the counts. The client throws on
 * an `{"error"}` line and when the body ends before `done`.
 */
async function* readStream(lines: AsyncIterable<ChatResponse>): AsyncGenerator<ChatStreamPart> {
  for await (const line of lines) {
    if (typeof line !== "object" || line === null) throw new UnexpectedReplyError("An Ollama stream line is not an object.");
    const text = line.message?.content;
    if (typeof text === "string" && text !== "") yield { type: "delta", text };
    if (line.done) {
      const usage = readReply({ ...line, message: { role: "assistant", content: "" } }).usage;
      yield { type: "finish", ...(usage ? { usage } : {}) };
      return;
    }
  }
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
