/** What one POST came to. */
export interface PostOutcome {
  /** A 2xx answer arrived within the timeout. */
  delivered: boolean;
  /** The answer's status; null when none came. */
  responseStatus: number | null;
  /** Why it was not delivered, in a few words; null when delivered. */
  error: string | null;
}

/**
 * POSTs one signed body. Only the status counts: the receiver's body is discarded unread (it
 * is not ours to log). Redirects are not followed, so a signed event only ever reaches the
 * subscribed URL; a 3xx is a failure like any other non-2xx.
 */
export async function postWebhook(
  fetchFunction: typeof fetch,
  request: { url: string; headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<PostOutcome> {
  let response: Response;
  try {
    response = await fetchFunction(request.url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(request.timeoutMs),
    });
  } catch (error) {
    return { delivered: false, responseStatus: null, error: describeFailure(error, request.timeoutMs) };
  }
  // Frees the connection without waiting for a body a slow receiver may never finish.
  response.body?.cancel().catch(() => {});
  const delivered = response.status >= 200 && response.status < 300;
  return { delivered, responseStatus: response.status, error: delivered ? null : `HTTP ${response.status}` };
}

/** A failure without its message: messages can carry the URL, which may hold a token. */
function describeFailure(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") return `timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  return code ? `request failed: ${code}` : "request failed";
}
