/**
 * Chats start one per turn of the event loop, in the order their requests reached a handler.
 *
 * A chat's start (accepting the message, retrieval, the prompt: about 2–3 ms of CPU at 15,000
 * chunks) runs on the event loop without a pause until the provider call. Started as their
 * requests are read, the starts of a whole batch of requests run back to back, and every chat
 * whose provider has answered meanwhile waits behind all of them; which chats wait behind whom
 * is the order of the sockets in the poll, so under load the slowest chats wait several times
 * longer than the median. Here a chat waits for its turn first, and each turn of the loop starts
 * one: the answers that arrived meanwhile are finished in between, and the chats waiting to
 * start go first come, first served.
 * The work is the same (same CPU a chat, same throughput); its order makes the tail shorter
 * (docs/benchmarks.md, "Chats one per turn").
 */
export function createChatTurns(): { next(): Promise<void> } {
  const waiting: (() => void)[] = [];
  const startOne = () => {
    waiting.shift()!();
    // The next one in the next turn: an immediate scheduled by an immediate runs in the next turn.
    if (waiting.length > 0) setImmediate(startOne);
  };
  return {
    next() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (waiting.length === 1) setImmediate(startOne);
      });
    },
  };
}

/** The process's turns: one event loop, one queue, shared by every route that starts a chat. */
export const chatTurns = createChatTurns();
