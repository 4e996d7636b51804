import type { Provider } from "../domain/chatbot.js";
import type { ChatModel, ChatReply, ChatRequest, ChatStreamPart, TokenUsage } from "../ports/chat-model.js";

/**
 * A streamed answer: each string is a delta, each promise a pause until it settles (a test decides
 * when the model goes on); then `error` is thrown (a stream that breaks half-way), or it finishes.
 */
export interface ScriptedStream {
  deltas: Array<string | PromiseLike<unknown>>;
  error?: Error;
  usage?: TokenUsage;
}

/** What a scripted model does for one call: answer, stream, or fail. */
export type ScriptedStep = string | ChatReply | ScriptedStream | Error | ((request: ChatRequest) => ChatReply | Promise<ChatReply>);

/** A chat model that replays a script and records every request it was sent. */
export interface ScriptedChatModel extends ChatModel {
  /** Every request, in order. */
  readonly requests: ChatRequest[];
  /** Queues the outcome of the next calls. */
  enqueue(...steps: ScriptedStep[]): void;
}

/**
 * A scripted model: each call takes the next queued step; with nothing queued it answers
 * `fallback(request)` (by default an echo of the last message). Either call answers every step:
 * `complete` joins a stream's deltas, `stream` cuts a plain answer into words.
 */
export function createScriptedChatModel(
  options: { provider?: Provider; fallback?: (request: ChatRequest) => string } = {},
): ScriptedChatModel {
  const queue: ScriptedStep[] = [];
  const requests: ChatRequest[] = [];
  const fallback = options.fallback ?? ((request) => `echo: ${request.messages.at(-1)?.content ?? ""}`);
  const next = (request: ChatRequest) => {
    requests.push(request);
    return queue.shift() ?? fallback(request);
  };
  return {
    provider: options.provider ?? "openai",
    requests,
    enqueue: (...steps) => void queue.push(...steps),
    async complete(request) {
      const step = next(request);
      if (step instanceof Error) throw step;
      if (typeof step === "string") return { text: step };
      if (typeof step === "function") return step(request);
      if (isScriptedStream(step)) return completeStream(step);
      return step;
    },
    async *stream(request) {
      const step = next(request);
      if (step instanceof Error) throw step;
      const script: ScriptedStream = isScriptedStream(step)
        ? step
        : toStream(typeof step === "string" ? { text: step } : typeof step === "function" ? await step(request) : step);
      yield* playStream(script, request.signal);
    },
  };
}

function isScriptedStream(step: ScriptedStep): step is ScriptedStream {
  return typeof step === "object" && step !== null && "deltas" in step;
}

/** A plain answer as a stream: one delta per word, each with the space before it. */
function toStream(reply: ChatReply): ScriptedStream {
  return { deltas: reply.text.match(/\s*\S+|\s+$/g) ?? [], ...(reply.usage ? { usage: reply.usage } : {}) };
}

async function completeStream(script: ScriptedStream): Promise<ChatReply> {
  let text = "";
  for await (const part of playStream(script, undefined)) if (part.type === "delta") text += part.text;
  return { text, ...(script.usage ? { usage: script.usage } : {}) };
}

async function* playStream(script: ScriptedStream, signal: AbortSignal | undefined): AsyncGenerator<ChatStreamPart> {
  for (const delta of script.deltas) {
    signal?.throwIfAborted();
    if (typeof delta === "string") {
      yield { type: "delta", text: delta };
      continue;
    }
    await untilSettledOrAborted(delta, signal);
  }
  signal?.throwIfAborted();
  if (script.error) throw script.error;
  yield { type: "finish", ...(script.usage ? { usage: script.usage } : {}) };
}

/** Waits for a scripted pause, or rejects with the abort reason as a real provider call would. */
function untilSettledOrAborted(pause: PromiseLike<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return Promise.resolve(pause).then(() => undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
    Promise.resolve(pause).then(
      () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
