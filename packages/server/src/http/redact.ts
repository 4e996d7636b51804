/** Key-shaped strings: OpenAI-style `sk-…`, Anthropic `sk-ant-…`, Parley `prl_…` keys and `whsec_…` secrets. */
const SECRET_PATTERN = /\b(?:sk-[A-Za-z0-9_-]{6,}|prl_[A-Za-z0-9_-]{8,}|whsec_[A-Za-z0-9+/=]{8,})/g;

/**
 * Replaces secrets in every string of a log line: the configured values (API keys of the
 * providers) and anything shaped like a key. Upstream error messages sometimes echo the key
 * they refused, and causes are logged whole.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  const known = secrets.filter((secret) => secret.length >= 6);
  const visit = (item: unknown): unknown => {
    if (typeof item === "string") {
      let text = item;
      for (const secret of known) text = text.split(secret).join("[redacted]");
      return text.replace(SECRET_PATTERN, "[redacted]");
    }
    if (Array.isArray(item)) return item.map(visit);
    if (item !== null && typeof item === "object") return Object.fromEntries(Object.entries(item).map(([key, inner]) => [key, visit(inner)]));
    return item;
  };
  return visit(value) as T;
}
