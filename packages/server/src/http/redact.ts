/** Key-shaped strings: OpenAI-style `sk-…`, Anthropic `sk-ant-…`, Parley `prl_…` keys and `whsec_…` secrets. */
const SECRET_SHAPES = String.raw`\b(?:sk-[A-Za-z0-9_-]{6,}|prl_[A-Za-z0-9_-]{8,}|whsec_[A-Za-z0-9+/=]{8,})`;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Replaces secrets in every string of a value (a copy); `text` does it to one string. */
export type Redactor = (<T>(value: T) => T) & { text: (value: string) => string };

/**
 * A function that replaces secrets in every string of a log line: the configured values (API
 * keys of the providers) and anything shaped like a key. Upstream error messages sometimes echo
 * the key they refused, and causes are logged whole. The pattern is built once, not per line:
 * the access log calls this on every request.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  // Longest first, so a secret that contains another is replaced whole.
  const known = secrets.filter((secret) => secret.length >= 6).sort((a, b) => b.length - a.length);
  const pattern = new RegExp([...known.map(escapeRegExp), SECRET_SHAPES].join("|"), "g");
  const text = (item: string) => item.replace(pattern, "[redacted]");
  const visit = (item: unknown): unknown => {
    if (typeof item === "string") return text(item);
    if (Array.isArray(item)) return item.map(visit);
    if (item === null || typeof item !== "object") return item;
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(item)) copy[key] = visit((item as Record<string, unknown>)[key]);
    return copy;
  };
  return Object.assign(<T>(value: T) => visit(value) as T, { text });
}
