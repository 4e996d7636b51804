import { FAKE_REPLY_TEXT, replyWith, usageOf, type FakeBehaviour } from "./fake-behaviours.js";
import { fakeDimensionsFor, fakeEmbedding } from "./fake-embedding.js";
import { startFakeServer, type FakeRoute, type FakeServerOptions, type RecordedRequest, type StreamWire } from "./fake-server.js";

/** Options of {@link startFakeOllama}. */
export interface FakeOllamaOptions extends FakeServerOptions {
  /** Vector length of the default embeddings; default: the model's known size, else 8. */
  embeddingDimensions?: number;
}

/** A fake of Ollama's `/api/chat` and `/api/embed`. */
export interface FakeOllama {
  /** The host to give the client or `OLLAMA_HOST` (the origin). */
  url: string;
  origin: string;
  readonly requests: RecordedRequest[];
  readonly requestCount: number;
  /** `POST /api/chat`. */
  chat: FakeRoute;
  /** `POST /api/embed`. */
  embed: FakeRoute;
  close(): Promise<void>;
}

/** Starts a fake Ollama on 127.0.0.1 and a free port. With `apiKey`, it wants a bearer token. */
export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const server = await startFakeServer(
    {
      routes: {
        chat: { path: "/api/chat", defaultBehaviour: () => replyWith(FAKE_REPLY_TEXT), successBody: chatResponse, stream: chatStream },
        embed: {
          path: "/api/embed",
          defaultBehaviour: (request) => defaultVectors(request, options.embeddingDimensions),
          successBody: embedResponse,
        },
      },
      errorBody: (_status, message) => ({ error: message }),
      carriesApiKey: (headers, apiKey) => headers.authorization === `Bearer ${apiKey}`,
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
    chat: server.routes.chat,
    embed: server.routes.embed,
    close: () => server.close(),
  };
}

interface OllamaBody {
  model?: string;
  messages?: Array<{ content?: unknown }>;
  input?: string | string[];
}

function chatResponse(behaviour: FakeBehaviour, request: RecordedRequest) {
  if (behaviour.kind !== "reply") throw new Error("the chat endpoint answers replies, not vectors");
  const body = (request.body ?? {}) as OllamaBody;
  const prompt = (body.messages ?? []).map((message) => String(message.content ?? "")).join("\n");
  const usage = usageOf(behaviour.usage, prompt, behaviour.text);
  return {
    model: body.model ?? "fake",
    created_at: new Date().toISOString(),
    message: { role: "assistant", content: behaviour.text },
    done: true,
    done_reason: "stop",
    ...(usage === null ? {} : { prompt_eval_count: usage.inputTokens, eval_count: usage.outputTokens }),
  };
}

/** One NDJSON line of Ollama's stream. */
const line = (request: RecordedRequest, fields: Record<string, unknown>) =>
  `${JSON.stringify({ model: ((request.body ?? {}) as OllamaBody).model ?? "fake", created_at: new Date().toISOString(), ...fields })}\n`;

/**
 * Ollama's stream (the default unless `stream: false`): NDJSON, one line per delta with
 * `done: false`, then a line with an empty message, `done: true` and the counts.
 */
const chatStream: StreamWire = {
  requested: (request) => (request.body as { stream?: unknown } | undefined)?.stream !== false,
  contentType: "application/x-ndjson",
  start: () => [],
  delta: (text, request) => line(request, { message: { role: "assistant", content: text }, done: false }),
  finish(request, text, scripted) {
    const prompt = (((request.body ?? {}) as OllamaBody).messages ?? []).map((message) => String(message.content ?? "")).join("\n");
    const usage = usageOf(scripted, prompt, text);
    const counts = usage === null ? {} : { prompt_eval_count: usage.inputTokens, eval_count: usage.outputTokens };
    return [line(request, { message: { role: "assistant", content: "" }, done: true, done_reason: "stop", ...counts })];
  },
  error: (message) => `${JSON.stringify({ error: message })}\n`,
};

function inputsOf(request: RecordedRequest): string[] {
  const input = ((request.body ?? {}) as OllamaBody).input;
  return input === undefined ? [] : Array.isArray(input) ? input.map(String) : [String(input)];
}

function defaultVectors(request: RecordedRequest, dimensions: number | undefined): FakeBehaviour {
  const length = fakeDimensionsFor(((request.body ?? {}) as OllamaBody).model ?? "", dimensions);
  return { kind: "vectors", vectors: inputsOf(request).map((text) => fakeEmbedding(text, length)) };
}

function embedResponse(behaviour: FakeBehaviour, request: RecordedRequest) {
  if (behaviour.kind !== "vectors") throw new Error("the embed endpoint answers vectors, not replies");
  return { model: ((request.body ?? {}) as OllamaBody).model ?? "fake", embeddings: behaviour.vectors };
}
