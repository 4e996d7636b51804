/**
 * A connection URL with its password replaced by `***`, for messages and logs (a database or
 * Redis URL carries its password in clear). An unparseable URL is not echoed at all.
 */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return parsed.toString();
  } catch {
    return "(an unparseable URL)";
  }
}
