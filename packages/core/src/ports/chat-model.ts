import type { Provider } from "../domain/chatbot.js";
import type { MessageRole } from "../domain/conversation.js";

/** One turn sent to a model. */
export interface ChatTurn {
  role: MessageRole;
  content: string;
}

/** One call to a chat model. */
export interface ChatRequest {
  /** The model name configured on the chatbot. */
  model: string;
  /** The system text: system prompt, identity rules and retrieved context. */
  system: string;
  /** History oldest first, ending with the current user message. */
  messages: ChatTurn[];
  /** Upper bound on reply tokens. */
  maxTokens: number;
  /** Aborts the call (deadline or shutdown). */
  signal?: AbortSignal;
}

/** Token counts, when the provider reports them. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
}

/** The model's answer; `text` may be empty (the core then sends the fallback message). */
export interface ChatReply {
  text: string;
  usage?: TokenUsage;
}

/**
 * One piece of a streamed reply: a `delta` of text as the model writes it, in order, and, last,
 * one `finish` with the token counts when the provider reports them.
 */
export type ChatStreamPart = { type: "delta"; text: string } | { type: "finish"; usage?: TokenUsage };

/**
 * A chat model behind one provider. Implementations throw a `provider_failed` ParleyError
 * (see `providerFailed`) for every failure, keeping the upstream error as its cause.
 */
export interface ChatModel {
  /** The provider this model speaks to. */
  readonly provider: Provider;
  /** Sends one non-streaming request and returns the reply. */
  complete(request: ChatRequest): Promise<ChatReply>;
  /**
   * Sends one streaming request: text deltas as they arrive, then one `finish`. A failure is
   * thrown from the iteration as `provider_failed`, before the first delta (after the retries a
   * non-streaming call would make) or in the middle. Aborting `request.signal`, or stopping the
   * iteration, ends the upstream request.
   */
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}

/** The chat model for each provider a deployment has configured. */
export type ChatModels = Partial<Record<Provider, ChatModel>>;
