import type { ConversationWithMessages, Message } from "../api/types.js";

/** A takeover or hand-back of the conversation, as the timeline shows it. */
export type TimelineEvent = ConversationWithMessages["events"][number];

/** One entry of the conversation's timeline: a message, or a takeover change. */
export type TimelineEntry = { kind: "message"; at: string; message: Message } | { kind: "event"; at: string; event: TimelineEvent };

/**
 * The messages and the takeover changes in one story, oldest first. Messages keep their stored
 * order; an event goes before the first message stored after it (at the same time, after it:
 * an agent's reply that takes the conversation over is stored just after the takeover).
 */
export function timelineOf(messages: readonly Message[], events: readonly TimelineEvent[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const pending = [...events].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  for (const message of messages) {
    while (pending.length > 0 && pending[0]!.at <= message.created_at) {
      const event = pending.shift()!;
      entries.push({ kind: "event", at: event.at, event });
    }
    entries.push({ kind: "message", at: message.created_at, message });
  }
  for (const event of pending) entries.push({ kind: "event", at: event.at, event });
  return entries;
}

/** A takeover change in words: who did what. */
export function describeEvent(event: TimelineEvent): string {
  const who = event.by ?? "An operator";
  return event.type === "takeover_started" ? `${who} took the conversation over` : `${who} handed the conversation back to the bot`;
}

/** Messages longer than this are shown collapsed, with "Show all". */
export const COLLAPSE_AFTER_CHARS = 1_200;
