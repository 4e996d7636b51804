import { afterEach, describe, expect, test } from "vitest";
import { answerMalformedJson, failWith, hangForever, replyWith, streamWith } from "./fake-behaviours.js";
import { startFakeAnthropic } from "./fake-anthropic.js";
import { startFakeOllama } from "./fake-ollama.js";
import { startFakeOpenAI } from "./fake-openai.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});
async function openAI(options: Parameters<typeof startFakeOpenAI>[0] = {}) {
  const fake = await startFakeOpenAI(options);
  closers.push(() => fake.close());
  return fake;
}
const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

describe("fake providers", () => {
  test("listen on 127.0.0.1 and give the base URL each SDK wants", async () => {
    const [openai, anthropic, ollama] = await Promise.all([openAI(), startFakeAnthropic(), startFakeOllama()]);
    closers.push(() => anthropic.close(), () => ollama.close());
    expect(openai.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(anthropic.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ollama.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test("play queued behaviours in order, then the default", async () => {
    const fake = await openAI();
    fake.chat.enqueue(failWith(503), replyWith("queued"));
    const statuses = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await post(`${fake.url}/chat/completions`, { model: "m", messages: [] });
      statuses.push([response.status, await response.json()]);
    }
    expect(statuses[0]).toEqual([503, { error: expect.objectContaining({ message: "Fake upstream failure with status 503." }) }]);
    expect(statuses[1]?.[1]).toMatchObject({ choices: [{ message: { content: "queued" } }] });
    expect(statuses[2]?.[1]).toMatchObject({ choices: [{ message: { content: "This is the fake model's reply." } }] });
    expect(fake.chat.requestCount).toBe(3);
  });

  test("can answer from the request", async () => {
    const fake = await openAI();
    fake.chat.respondWith((request) => replyWith(`echo: ${(request.body as { messages: Array<{ content: string }> }).messages.at(-1)?.content}`));
    const response = await post(`${fake.url}/chat/completions`, { model: "m", messages: [{ role: "user", content: "ping" }] });
    expect(await response.json()).toMatchObject({ choices: [{ message: { content: "echo: ping" } }] });
  });

  test("record method, path, headers and body", async () => {
    const fake = await openAI();
    await post(`${fake.url}/chat/completions?x=1`, { model: "m" }, { "x-custom": "yes" });
    expect(fake.requests[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions", body: { model: "m" } });
    expect(fake.requests[0]?.headers["x-custom"]).toBe("yes");
  });

  test("enforce an API key when given one", async () => {
    const fake = await openAI({ apiKey: "sk-right" });
    expect((await post(`${fake.url}/chat/completions`, {}, { authorization: "Bearer sk-wrong" })).status).toBe(401);
    expect((await post(`${fake.url}/chat/completions`, {}, { authorization: "Bearer sk-right" })).status).toBe(200);
  });

  test("answer malformed JSON labelled as JSON, and 404 on unknown paths", async () => {
    const fake = await openAI();
    fake.chat.enqueue(answerMalformedJson());
    const response = await post(`${fake.url}/chat/completions`, {});
    expect(response.headers.get("content-type")).toBe("application/json");
    await expect(response.json()).rejects.toThrow(SyntaxError);
    expect((await post(`${fake.url}/nowhere`, {})).status).toBe(404);
  });

  test("delay an answer", async () => {
    const fake = await openAI();
    fake.chat.enqueue(replyWith("late", { delayMs: 120 }));
    const startedAt = performance.now();
    await post(`${fake.url}/chat/completions`, {});
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(110);
  });

  test("hold an answer until the test releases it", async () => {
    const fake = await openAI();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    fake.chat.respondWith(() => (arrived(), replyWith("released", { until: held })));
    let released = false;
    const pending = post(`${fake.url}/chat/completions`, {}).then(async (response) => ({ releasedFirst: released, body: await response.json() }));
    await received;
    expect(fake.chat.requestCount).toBe(1);
    released = true;
    release();
    expect(await pending).toMatchObject({ releasedFirst: true, body: { choices: [{ message: { content: "released" } }] } });
  });

  test("close while a request hangs, ending it", async () => {
    const fake = await startFakeOllama();
    let arrived!: () => void;
    const received = new Promise<void>((resolve) => (arrived = resolve));
    fake.chat.respondWith(() => (arrived(), hangForever()));
    const pending = post(`${fake.url}/api/chat`, {}).catch((error: unknown) => error);
    await received;
    // Without cutting the hanging connection, close() would never resolve (the test's timeout).
    await fake.close();
    expect(await pending).toBeInstanceOf(Error);
  });

  test("instant mode counts requests without recording them and skips delays", async () => {
    const fake = await openAI({ instant: true });
    fake.chat.respondWith(replyWith("fast", { delayMs: 5_000 }));
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(`${fake.url}/chat/completions`, { model: "m", messages: [] })));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    expect(fake.requestCount).toBe(20);
    expect(fake.chat.requestCount).toBe(20);
    expect(fake.requests).toEqual([]);
  });

  test("Anthropic's error body names the error type", async () => {
    const fake = await startFakeAnthropic();
    closers.push(() => fake.close());
    fake.messages.enqueue(failWith(529));
    const response = await post(`${fake.url}/v1/messages`, {});
    expect(response.status).toBe(529);
    expect(await response.json()).toEqual({ type: "error", error: { type: "overloaded_error", message: "Fake upstream failure with status 529." } });
  });

  test("Ollama embeds a single string input too", async () => {
    const fake = await startFakeOllama({ embeddingDimensions: 4 });
    closers.push(() => fake.close());
    const response = await post(`${fake.url}/api/embed`, { model: "m", input: "one text" });
    const body = (await response.json()) as { embeddings: number[][] };
    expect(body.embeddings).toHaveLength(1);
    expect(body.embeddings[0]).toHaveLength(4);
  });
});

describe("fake providers stream in each provider's wire format", () => {
  test("OpenAI: SSE chunks with deltas, a finish_reason, the usage chunk only when asked, then [DONE]", async () => {
    const fake = await openAI();
    fake.chat.enqueue(streamWith(["Hel", "lo"], { usage: { inputTokens: 3, outputTokens: 2 } }), streamWith(["Hi"]));
    const withUsage = await post(`${fake.url}/chat/completions`, { model: "m", messages: [], stream: true, stream_options: { include_usage: true } });
    expect(withUsage.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = (await withUsage.text()).split("\n\n").filter((frame) => frame !== "");
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.replace(/^data: /, "")) as { choices: { delta: { content?: string }; finish_reason: string | null }[]; usage?: unknown });
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? null)).toEqual(["", "Hel", "lo", null, null]);
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? null)).toEqual([null, null, null, "stop", null]);
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    const withoutUsage = await (await post(`${fake.url}/chat/completions`, { model: "m", messages: [], stream: true })).text();
    expect(withoutUsage).not.toContain('"usage"');
    expect(withoutUsage.endsWith("data: [DONE]\n\n")).toBe(true);
  });

  test("Anthropic: message_start, content_block_start, ping, content_block_delta…, content_block_stop, message_delta, message_stop", async () => {
    const fake = await startFakeAnthropic();
    closers.push(() => fake.close());
    fake.messages.enqueue(streamWith(["Hel", "lo"], { usage: { inputTokens: 3, outputTokens: 2 } }));
    const text = await (await post(`${fake.url}/v1/messages`, { model: "m", max_tokens: 5, messages: [], stream: true })).text();
    const events = text.split("\n\n").filter((frame) => frame !== "").map((frame) => {
      const [name, data] = frame.split("\n");
      return { name: name!.replace(/^event: /, ""), data: JSON.parse(data!.replace(/^data: /, "")) as Record<string, unknown> };
    });
    expect(events.map((event) => event.name)).toEqual([
      "message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta", "content_block_stop", "message_delta", "message_stop",
    ]);
    expect(events.every((event) => event.data.type === event.name)).toBe(true);
    expect(events[0]!.data).toMatchObject({ message: { usage: { input_tokens: 3 } } });
    expect(events[3]!.data).toMatchObject({ delta: { type: "text_delta", text: "Hel" } });
    expect(events[6]!.data).toMatchObject({ delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } });
  });

  test("Ollama: NDJSON lines, done: false for each delta, then done: true with the counts; stream unless stream: false", async () => {
    const fake = await startFakeOllama();
    closers.push(() => fake.close());
    fake.chat.enqueue(streamWith(["Hel", "lo"], { usage: { inputTokens: 3, outputTokens: 2 } }), streamWith(["Hel", "lo"]));
    const response = await post(`${fake.url}/api/chat`, { model: "m", messages: [] });
    expect(response.headers.get("content-type")).toBe("application/x-ndjson");
    const lines = (await response.text()).trimEnd().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => [(line.message as { content: string }).content, line.done])).toEqual([["Hel", false], ["lo", false], ["", true]]);
    expect(lines.at(-1)).toMatchObject({ prompt_eval_count: 3, eval_count: 2, done_reason: "stop" });
    await expect((await post(`${fake.url}/api/chat`, { model: "m", messages: [], stream: false })).json()).resolves.toMatchObject({ message: { content: "Hello" }, done: true });
  });
});
