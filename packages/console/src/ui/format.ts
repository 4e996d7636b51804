/** A timestamp of the API (docs/design.md §4) in the reader's locale, to the minute. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}

/** A byte count in words. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "1 document", "3 documents". */
export function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** Names of the message authors as an agent reads them. */
export const AUTHOR_LABELS = { user: "Visitor", model: "Bot", agent: "Agent" } as const;

/** Who wrote a message: an agent by the name of their key ("Ana (agent)"), else Visitor or Bot. */
export function authorLabel(author: keyof typeof AUTHOR_LABELS, agentName?: string | null): string {
  return author === "agent" && agentName ? `${agentName} (agent)` : AUTHOR_LABELS[author];
}
