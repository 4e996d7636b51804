import { FAKE_REPLY_TEXT, replyWith, usageOf, type FakeBehaviour } from "./fake-behaviours.js";
import { startFakeServer, type FakeRoute, type FakeServerOptions, type RecordedRequest, type StreamWire } from "./fake-server.js";

/** A fake of Anthropic's `/v1/messages`. */
export interface FakeAnthropic {
  /** The base URL to give the SDK or `ANTHROPIC_BASE_URL` (the origin: the SDK adds `/v1`). */
  url: string;
  origin: string;
  readonly requests: RecordedRequest[];
  readonly requestCount: number;
  /** `POST /v1/messages`. An empty reply answers with an empty `content` list. */
  messages: FakeRoute;
  close(): Promise<void>;
}

/** Starts a fake Anthropic on 127.0.0.1 and a free port. With `apiKey`, it accepts `x-api-key` or a bearer token. */
export async function startFakeAnthropic(options: FakeServerOptions = {}): Promise<FakeAnthropic> {
  const server = await startFakeServer(
    {
      routes: {
        messages: {
          path: "/v1/messages",
          defaultBehaviour: () => replyWith(FAKE_REPLY_TEXT),
          successBody: (behaviour, request) => message(behaviour, request),
          stream: messageStream,
        },
      },
      errorBody: (status, text) => ({ type: "error", error: { type: errorType(status), message: text } }),
      // The 1.x SDK sends a bearer token, the 0.x line sent x-api-key.
      carriesApiKey: (headers, apiKey) => headers["x-api-key"] === apiKey || headers.authorization === `Bearer ${apiKey}`,
    },
    options,
  );
  return {
    url: server.origin,
    origin: server.origin,
    get requests() {
      return server.requests;
    },
    get requestCount() {
      return server.requestCount;
    },
    messages: server.routes.messages,
    close: () => server.close(),
  };
}

interface AnthropicBody {
  model?: string;
  system?: unknown;
  messages?: Array<{ content?: unknown }>;
}

function message(behaviour: FakeBehaviour, request: RecordedRequest) {
  if (behaviour.kind !== "reply") throw new Error("the messages endpoint answers replies, not vectors");
  const body = (request.body ?? {}) as AnthropicBody;
  const prompt = [body.system, ...(body.messages ?? []).map((turn) => turn.content)].map((part) => (typeof part === "string" ? part : "")).join("\n");
  const usage = usageOf(behaviour.usage, prompt, behaviour.text);
  return {
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model: body.model ?? "fake",
    content: behaviour.text === "" ? [] : [{ type: "text", text: behaviour.text }],
    stop_reason: "end_turn",
    stop_sequence: null,
    ...(usage === null ? {} : { usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens } }),
  };
}

/** One server-sent event: its name and its JSON data, which repeats the name as `type`. */
const event = (type: string, data: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function promptOf(request: RecordedRequest): string {
  const body = (request.body ?? {}) as AnthropicBody;
  return [body.system, ...(body.messages ?? []).map((turn) => turn.content)].map((part) => (typeof part === "string" ? part : "")).join("\n");
}

/**
 * Anthropic's message stream: `message_start` (with the input tokens), `content_block_start`, a
 * `ping`, one `content_block_delta` per text delta, `content_block_stop`, `message_delta` (stop
 * reason and output tokens), `message_stop`. The real API always reports usage, so it is sent
 * even when a script asks for none (as zeros).
 */
const messageStream: StreamWire = {
  requested: (request) => (request.body as { stream?: unknown } | undefined)?.stream === true,
  contentType: "text/event-stream; charset=utf-8",
  start(request, scripted) {
    const body = (request.body ?? {}) as AnthropicBody;
    const inputTokens = usageOf(scripted, promptOf(request), "")?.inputTokens ?? 0;
    const started = { id: "msg_fake", type: "message", role: "assistant", model: body.model ?? "fake", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: inputTokens, output_tokens: 1 } };
    return [event("message_start", { message: started }), event("content_block_start", { index: 0, content_block: { type: "text", text: "" } }), event("ping", {})];
  },
  delta: (text) => event("content_block_delta", { index: 0, delta: { type: "text_delta", text } }),
  finish(request, text, scripted) {
    const usage = usageOf(scripted, promptOf(request), text);
    return [
      event("content_block_stop", { index: 0 }),
      event("message_delta", { delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: usage?.outputTokens ?? 0 } }),
      event("message_stop", {}),
    ];
  },
  error: (message) => event("error", { error: { type: "overloaded_error", message } }),
};

function errorType(status: number): string {
  const types: Record<number, string> = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
  };
  return types[status] ?? "api_error";
}
