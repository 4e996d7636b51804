import type { ChatTurn } from "@parley/core";

/**
 * The history as strictly alternating turns that start with the user: consecutive turns of one
 * role are joined by a blank line, and assistant turns before the first user turn are dropped.
 * Anthropic requires this, and so do the chat templates of many local models served through
 * Ollama or an OpenAI-compatible server; the core's history can break it (a reply that failed,
 * a human takeover, a window of 10 that starts on an assistant turn).
 */
export function alternateTurns(messages: readonly ChatTurn[]): ChatTurn[] {
  const turns: ChatTurn[] = [];
  for (const message of messages) {
    const previous = turns.at(-1);
    if (previous === undefined && message.role === "assistant") continue;
    if (previous !== undefined && previous.role === message.role) {
      previous.content = `${previous.content}\n\n${message.content}`;
    } else {
      turns.push({ role: message.role, content: message.content });
    }
  }
  return turns;
}

/** Thrown inside an attempt when a 200 answer lacks the fields every reply has; never retried. */
export class UnexpectedReplyError extends Error {
  override readonly name = "UnexpectedReplyError";
}
