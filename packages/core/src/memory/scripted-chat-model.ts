import type { Provider } from "../domain/chatbot.js";
import type { ChatModel, ChatReply, ChatRequest } from "../ports/chat-model.js";

/** What a scripted model does for one call: answer, or fail. */
export type ScriptedStep = string | ChatReply | Error | ((request: ChatRequest) => ChatReply | Promise<ChatReply>);

/** A chat model that replays a script and records every request it was sent. */
export interface ScriptedChatModel extends ChatModel {
  /** Every request, in order. */
  readonly requests: ChatRequest[];
  /** Queues the outcome of the next calls. */
  enqueue(...steps: ScriptedStep[]): void;
}

/**
 * A scripted model: each call takes the next queued step; with nothing queued it answers
 * `fallback(request)` (by default an echo of the last message).
 */
export function createScriptedChatModel(
  options: { provider?: Provider; fallback?: (request: ChatRequest) => string } = {},
): ScriptedChatModel {
  const queue: ScriptedStep[] = [];
  const requests: ChatRequest[] = [];
  const fallback = options.fallback ?? ((request) => `echo: ${request.messages.at(-1)?.content ?? ""}`);
  return {
    provider: options.provider ?? "openai",
    requests,
    enqueue: (...steps) => void queue.push(...steps),
    async complete(request) {
      requests.push(request);
      const step = queue.shift() ?? fallback(request);
      if (step instanceof Error) throw step;
      if (typeof step === "string") return { text: step };
      if (typeof step === "function") return step(request);
      return step;
    },
  };
}
