import type { Message } from "../domain/conversation.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { acceptMessage, modelFailed, modelFor, preparePrompt, storeReply, type AcceptedMessage } from "./chat-steps.js";
import { createEventChannel, type EventChannel } from "./event-channel.js";

/**
 * What a streamed chat yields, in this order: `message` (the stored user message), then either
 * `handoff` (a human agent has the conversation: no reply) or zero or more `delta`s followed by
 * `reply`. A failure after `message` is thrown from the iteration (a `provider_failed`
 * ParleyError when the model failed); a failure before it (the checks of steps 1–4) is thrown
 * by the first `next()`, before anything is stored.
 */
export type ChatStreamEvent =
  /** Steps 1–4 are done: the user message is stored and its events written. */
  | { type: "message"; message: Message }
  /** Text as the model writes it. The reply's content is what counts: a blank answer becomes the fallback message. */
  | { type: "delta"; text: string }
  /** The stored reply with its sources (and its `message.sent` event written). The last event. */
  | { type: "reply"; message: Message }
  /** A human agent has the conversation: the message is stored, no reply is generated. The last event. */
  | { type: "handoff" };

/** The streamed replies of one Parley instance that are still being generated. */
export interface ReplyGenerations {
  /** Each generation until it has stored its reply or failed. */
  running: Set<Promise<void>>;
  /** Aborting it ends every generation, as each one's own `signal` would (a shutdown past its grace). */
  abort: AbortSignal;
}

/** Options of a streamed chat. */
export interface ChatStreamOptions {
  /**
   * Ends the generation (e.g. the server shuts down): the model call is aborted and the
   * conversation marked as needing an agent. NOT for a reader that goes away: stop iterating
   * instead, and the reply is still generated and stored.
   */
  signal?: AbortSignal;
}

/**
 * The spec's chat, streamed: the same seven steps as `chat()`, in the same order, yielding the
 * stored user message, the deltas, then the stored reply. The first `next()` runs steps 1–4.
 * From then on the generation belongs to the core, not to the reader: it runs on to its end
 * (bounded by the provider's deadline) and stores the reply with its `message.sent` event
 * exactly once, whether or not anyone still reads. `generations` holds it while it runs.
 */
export async function* chatStream(
  dependencies: Dependencies,
  caller: Pick<Caller, "user">,
  chatbotId: string,
  body: unknown,
  options: ChatStreamOptions,
  generations: ReplyGenerations,
): AsyncGenerator<ChatStreamEvent> {
  const accepted = await acceptMessage(dependencies, caller, chatbotId, body);
  if (accepted.conversation.humanTakeover) {
    yield { type: "message", message: accepted.message };
    yield { type: "handoff" };
    return;
  }
  // Started before the first yield: a reader that stops right after `message` must not stop it.
  const channel = createEventChannel<ChatStreamEvent>();
  const generation = generateReply(dependencies, accepted, [options.signal, generations.abort], channel);
  generations.running.add(generation);
  void generation.finally(() => generations.running.delete(generation));
  yield { type: "message", message: accepted.message };
  yield* channel.read();
}

/** Steps 5–7 in the background, ended early by any of `signals`; never rejects: the outcome goes to the channel. */
async function generateReply(
  dependencies: Dependencies,
  accepted: AcceptedMessage,
  signals: (AbortSignal | undefined)[],
  channel: EventChannel<ChatStreamEvent>,
): Promise<void> {
  const { signal, release } = linkSignals(signals);
  try {
    const { prompt, sources } = await preparePrompt(dependencies, accepted);
    let text = "";
    try {
      const model = modelFor(dependencies, accepted.chatbot);
      const request = { model: accepted.chatbot.model, ...prompt, maxTokens: dependencies.settings.maxReplyTokens, signal };
      for await (const part of model.stream(request)) {
        if (part.type !== "delta" || part.text === "") continue;
        text += part.text;
        channel.push({ type: "delta", text: part.text });
      }
    } catch (error) {
      await modelFailed(dependencies, accepted, error);
    }
    channel.push({ type: "reply", message: await storeReply(dependencies, accepted, text, sources) });
    channel.close();
  } catch (error) {
    channel.fail(error);
  } finally {
    release();
  }
}

/**
 * One signal aborted by the first of `signals` to abort, with its reason. Listeners, not
 * `AbortSignal.any`, so that the instance's long-lived signal keeps nothing of a finished
 * generation once `release` has run.
 */
function linkSignals(signals: (AbortSignal | undefined)[]): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController();
  const linked = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const listeners = linked.map((source) => {
    const listener = () => controller.abort(source.reason);
    if (source.aborted) listener();
    else source.addEventListener("abort", listener, { once: true });
    return () => source.removeEventListener("abort", listener);
  });
  return { signal: controller.signal, release: () => listeners.forEach((remove) => remove()) };
}
