import { estimateTokens, FAKE_REPLY_TEXT, replyWith, usageOf, type FakeBehaviour } from "./fake-behaviours.js";
import { fakeDimensionsFor, fakeEmbedding } from "./fake-embedding.js";
import { startFakeServer, type FakeRoute, type FakeServerOptions, type RecordedRequest, type StreamWire } from "./fake-server.js";

/** Options of {@link startFakeOpenAI}. */
export interface FakeOpenAIOptions extends FakeServerOptions {
  /** Vector length of the default embeddings; default: the model's known size, else 8. */
  embeddingDimensions?: number;
}

/** A fake of OpenAI's `/v1/chat/completions` and `/v1/embeddings` (also any OpenAI-compatible server). */
export interface FakeOpenAI {
  /** The base URL to give the SDK or `OPENAI_BASE_URL`: `<origin>/v1`. */
  url: string;
  origin: string;
  /** Every request in arrival order. */
  readonly requests: RecordedRequest[];
  readonly requestCount: number;
  /** `POST /v1/chat/completions`. */
  chat: FakeRoute;
  /** `POST /v1/embeddings`; honours `encoding_format: "base64"` as the real API does. */
  embeddings: FakeRoute;
  close(): Promise<void>;
}

/** Starts a fake OpenAI on 127.0.0.1 and a free port. */
export async function startFakeOpenAI(options: FakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const server = await startFakeServer(
    {
      routes: {
        chat: {
          path: "/v1/chat/completions",
          defaultBehaviour: () => replyWith(FAKE_REPLY_TEXT),
          successBody: (behaviour, request) => chatCompletion(behaviour, request),
          stream: chatStream,
        },
        embeddings: {
          path: "/v1/embeddings",
          defaultBehaviour: (request) => defaultVectors(request, options.embeddingDimensions),
          successBody: (behaviour, request) => embeddingList(behaviour, request),
        },
      },
      errorBody: (status, message) => ({ error: { message, type: errorType(status), param: null, code: null } }),
      carriesApiKey: (headers, apiKey) => headers.authorization === `Bearer ${apiKey}`,
    },
    options,
  );
  return {
    url: `${server.origin}/v1`,
    origin: server.origin,
    get requests() {
      return server.requests;
    },
    get requestCount() {
      return server.requestCount;
    },
    chat: server.routes.chat,
    embeddings: server.routes.embeddings,
    close: () => server.close(),
  };
}

interface OpenAIChatBody {
  model?: string;
  messages?: Array<{ content?: unknown }>;
}

function chatCompletion(behaviour: FakeBehaviour, request: RecordedRequest) {
  if (behaviour.kind !== "reply") throw new Error("the chat endpoint answers replies, not vectors");
  const body = (request.body ?? {}) as OpenAIChatBody;
  const prompt = (body.messages ?? []).map((message) => String(message.content ?? "")).join("\n");
  const usage = usageOf(behaviour.usage, prompt, behaviour.text);
  return {
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? "fake",
    choices: [{ index: 0, message: { role: "assistant", content: behaviour.text, refusal: null }, finish_reason: "stop", logprobs: null }],
    ...(usage === null
      ? {}
      : { usage: { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens } }),
  };
}

interface OpenAIStreamBody extends OpenAIChatBody {
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
}

/** One `chat.completion.chunk` as an SSE `data:` frame. */
function chunkFrame(request: RecordedRequest, fields: Record<string, unknown>): string {
  const body = (request.body ?? {}) as OpenAIChatBody;
  const chunk = { id: "chatcmpl-fake", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model ?? "fake", ...fields };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/**
 * OpenAI's stream: SSE `data:` chunks with a `delta` each, one with `finish_reason`, then, when
 * `stream_options.include_usage` asked for it, a chunk with no choices and the usage, then `[DONE]`.
 */
const chatStream: StreamWire = {
  requested: (request) => ((request.body ?? {}) as OpenAIStreamBody).stream === true,
  contentType: "text/event-stream; charset=utf-8",
  start: (request) => [chunkFrame(request, { choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null, logprobs: null }] })],
  delta: (text, request) => chunkFrame(request, { choices: [{ index: 0, delta: { content: text }, finish_reason: null, logprobs: null }] }),
  finish(request, text, scripted) {
    const body = (request.body ?? {}) as OpenAIStreamBody;
    const frames = [chunkFrame(request, { choices: [{ index: 0, delta: {}, finish_reason: "stop", logprobs: null }] })];
    const prompt = (body.messages ?? []).map((message) => String(message.content ?? "")).join("\n");
    const usage = usageOf(scripted, prompt, text);
    if (body.stream_options?.include_usage === true && usage !== null) {
      const counts = { prompt_tokens: usage.inputTokens, completion_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
      frames.push(chunkFrame(request, { choices: [], usage: counts }));
    }
    return [...frames, "data: [DONE]\n\n"];
  },
  error: (message) => `data: ${JSON.stringify({ error: { message, type: "server_error", param: null, code: null } })}\n\n`,
};

interface OpenAIEmbeddingsBody {
  model?: string;
  input?: string | string[];
  encoding_format?: "float" | "base64";
}

function inputsOf(request: RecordedRequest): string[] {
  const input = ((request.body ?? {}) as OpenAIEmbeddingsBody).input;
  return input === undefined ? [] : Array.isArray(input) ? input.map(String) : [String(input)];
}

function defaultVectors(request: RecordedRequest, dimensions: number | undefined): FakeBehaviour {
  const model = ((request.body ?? {}) as OpenAIEmbeddingsBody).model ?? "";
  const length = fakeDimensionsFor(model, dimensions);
  return { kind: "vectors", vectors: inputsOf(request).map((text) => fakeEmbedding(text, length)) };
}

function embeddingList(behaviour: FakeBehaviour, request: RecordedRequest) {
  if (behaviour.kind !== "vectors") throw new Error("the embeddings endpoint answers vectors, not replies");
  const body = (request.body ?? {}) as OpenAIEmbeddingsBody;
  const asBase64 = body.encoding_format === "base64";
  const tokens = inputsOf(request).reduce((sum, text) => sum + estimateTokens(text), 0);
  return {
    object: "list",
    data: behaviour.vectors.map((vector, index) => ({
      object: "embedding",
      index,
      embedding: asBase64 ? float32Base64(vector) : vector,
    })),
    model: body.model ?? "fake",
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/** The API's base64 form: little-endian float32s. */
function float32Base64(vector: number[]): string {
  const buffer = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => buffer.writeFloatLE(value, index * 4));
  return buffer.toString("base64");
}

function errorType(status: number): string {
  if (status === 401) return "invalid_request_error";
  if (status === 429) return "rate_limit_exceeded";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}
