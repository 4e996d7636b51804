// The frame's calls to the public routes (docs/design.md §14), on its own origin: no key, the
// visitor token as `Authorization: Bearer`, never in a URL.
import { createSseParser, type ServerSentEvent } from "@parley/sse-parser";

export interface Source {
  document_id: string;
  title: string;
  source: string;
  page: number | null;
}

/** A message as the public routes show it; the fields a view may lack are optional. */
export interface WidgetMessage {
  id: string;
  role?: string;
  author?: string;
  agent_name?: string | null;
  content: string;
  created_at?: string;
  sources?: Source[];
  feedback?: { rating: "up" | "down" } | null;
}

export interface Appearance {
  title: string;
  welcome_message: string;
  starter_questions: string[];
  accent_color: string;
  position: "left" | "right";
  identity_required: boolean;
  available: boolean;
}

/** A refused request: its status and `detail`. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | undefined,
  ) {
    super(detail ?? `HTTP ${status}`);
  }
}

export function createApi(chatbotId: string) {
  const base = `/v1/widget/${encodeURIComponent(chatbotId)}`;

  async function call<T>(path: string, init: RequestInit & { token?: string | undefined } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (init.token) headers.authorization = `Bearer ${init.token}`;
    const response = await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) } });
    if (!response.ok) throw await refusal(response);
    return (response.status === 204 ? undefined : await response.json()) as T;
  }

  return {
    appearance: () => call<Appearance>(""),
    createSession: (identity: { userId?: string; userHash?: string }) =>
      call<{ session_id: string; token: string }>("/sessions", {
        method: "POST",
        body: JSON.stringify({ ...(identity.userId ? { user_id: identity.userId } : {}), ...(identity.userHash ? { user_hash: identity.userHash } : {}) }),
      }),
    messages: (token: string) => call<{ data: WidgetMessage[] }>("/messages", { token }),
    feedback: (token: string, messageId: string, rating: "up" | "down") =>
      call<void>(`/messages/${encodeURIComponent(messageId)}/feedback`, { method: "POST", token, body: JSON.stringify({ rating }) }),
    /** Sends a message and asks for the reply as a stream; the response for {@link readEvents}, or JSON. */
    async send(token: string, message: string, signal: AbortSignal): Promise<Response> {
      const response = await fetch(`${base}/messages`, {
        method: "POST",
        headers: { accept: "text/event-stream", "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({ message }),
        signal,
      });
      if (!response.ok) throw await refusal(response);
      return response;
    },
    /** Opens the session's live events (fetch, since EventSource cannot send a header). */
    async events(token: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
      const headers: Record<string, string> = { accept: "text/event-stream", authorization: `Bearer ${token}` };
      if (lastEventId) headers["last-event-id"] = lastEventId;
      const response = await fetch(`${base}/events`, { headers, signal, cache: "no-store" });
      if (!response.ok) throw await refusal(response);
      return response;
    },
  };
}

export type Api = ReturnType<typeof createApi>;

async function refusal(response: Response): Promise<Refused> {
  let detail: string | undefined;
  try {
    const body = (await response.json()) as { detail?: unknown };
    if (typeof body.detail === "string") detail = body.detail;
  } catch {
    // Not JSON: the status says enough.
  }
  return new Refused(response.status, detail);
}

/** Reads a `text/event-stream` body, calling `onEvent` for each event; resolves at its end. */
export async function readEvents(response: Response, onEvent: (event: ServerSentEvent) => void, parser = createSseParser()): Promise<void> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const event of parser.feed(value)) onEvent(event);
  }
}
