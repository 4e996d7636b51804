// PostgreSQL's TEXT cannot hold NUL (U+0000), which chunk text and chat messages may contain.
// Chunks are stored as UTF-8 BYTEA; storage text columns escape NUL reversibly (below).

/** A string as UTF-8 bytes, for a BYTEA column. */
export const toBytes = (text: string) => Buffer.from(text, "utf8");

/** A BYTEA column's UTF-8 bytes as a string. */
export const fromBytes = (bytes: Buffer) => bytes.toString("utf8");

// A stored value that starts with this private-use character is escaped: `\` doubled, NUL as
// `\0`. Any other value is stored as it is, so the common case reads naturally in SQL tools.
const ESCAPED = "\uE000";

/** A string safe for a TEXT column (no NUL), reversible by {@link fromText}. */
export function toText(value: string): string {
  if (!value.includes("\u0000") && !value.startsWith(ESCAPED)) return value;
  return ESCAPED + value.replaceAll("\\", "\\\\").replaceAll("\u0000", "\\0");
}

/** The string {@link toText} stored. */
export function fromText(stored: string): string {
  if (!stored.startsWith(ESCAPED)) return stored;
  return stored.slice(1).replace(/\\(\\|0)/g, (_, escaped: string) => (escaped === "0" ? "\u0000" : "\\"));
}
