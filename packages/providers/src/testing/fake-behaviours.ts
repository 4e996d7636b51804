/** The text the fakes answer with when nothing else is scripted. */
export const FAKE_REPLY_TEXT = "This is the fake model's reply.";

/** Token counts a fake reports; `null` leaves usage out of the answer. */
export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
}

/** How a streamed answer ends: as the provider finishes one, a dropped connection, silence, or the provider's error event. */
export type StreamEnd = "finish" | "reset" | "hang" | "error";

/** What a fake does with one request. Every kind but `hang` may be delayed by `delayMs`. */
export type FakeBehaviour =
  | { kind: "reply"; text: string; usage?: FakeUsage | null; delayMs?: number; until?: PromiseLike<unknown> }
  | { kind: "stream"; parts: Array<string | PromiseLike<unknown>>; end: StreamEnd; usage?: FakeUsage | null; delayMs?: number }
  | { kind: "vectors"; vectors: number[][]; delayMs?: number }
  | { kind: "error"; status: number; message: string; headers: Record<string, string>; delayMs?: number }
  | { kind: "malformed"; delayMs?: number }
  | { kind: "reset"; delayMs?: number }
  | { kind: "hang" };

/**
 * A chat answer with this text (`""` for an empty reply); usage is estimated unless given or `null`.
 * With `until`, the answer waits for that promise: a test decides when the model answers.
 */
export function replyWith(text: string, options: { usage?: FakeUsage | null; delayMs?: number; until?: PromiseLike<unknown> } = {}): FakeBehaviour {
  return { kind: "reply", text, ...options };
}

/**
 * A streamed answer in the provider's wire format: each string is one delta, each promise a pause
 * until it settles (the test decides when the model goes on), then the `end` (default `finish`:
 * the provider's closing frames, with usage). A request that did not ask for a stream gets the
 * joined text as one answer. A `replyWith` answer to a stream request is streamed word by word.
 */
export function streamWith(
  parts: Array<string | PromiseLike<unknown>>,
  options: { end?: StreamEnd; usage?: FakeUsage | null; delayMs?: number } = {},
): FakeBehaviour {
  const { end = "finish", ...rest } = options;
  return { kind: "stream", parts, end, ...rest };
}

/** A reply's text as a stream's deltas: one per word, each with the whitespace before it. */
export function wordsOf(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** An embeddings answer with exactly these vectors (instead of the fake's own deterministic ones). */
export function embedWith(vectors: number[][], options: { delayMs?: number } = {}): FakeBehaviour {
  return { kind: "vectors", vectors, ...options };
}

/**
 * An error status with the provider's error body, e.g. `failWith(429, { headers: { "retry-after": "1" } })`.
 * The message defaults to a text that names the status.
 */
export function failWith(
  status: number,
  options: { message?: string; headers?: Record<string, string>; delayMs?: number } = {},
): FakeBehaviour {
  const { message = `Fake upstream failure with status ${status}.`, headers = {}, ...rest } = options;
  return { kind: "error", status, message, headers, ...rest };
}

/** A 200 answer, labelled `application/json`, whose body is not valid JSON. */
export function answerMalformedJson(options: { delayMs?: number } = {}): FakeBehaviour {
  return { kind: "malformed", ...options };
}

/** Destroys the connection without answering (the client sees a reset socket). */
export function resetConnection(options: { delayMs?: number } = {}): FakeBehaviour {
  return { kind: "reset", ...options };
}

/** Never answers; the request stays open until the client gives up or the fake is closed. */
export function hangForever(): FakeBehaviour {
  return { kind: "hang" };
}

/** A rough token count (a token is about four characters of English), for usage the fakes report. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The usage to report: the scripted one, none for `null`, else an estimate. */
export function usageOf(scripted: FakeUsage | null | undefined, prompt: string, reply: string): FakeUsage | null {
  if (scripted !== undefined) return scripted;
  return { inputTokens: estimateTokens(prompt), outputTokens: estimateTokens(reply) };
}
