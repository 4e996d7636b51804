import type { ChatStreamPart } from "@parley/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DeadlineExceededError } from "../call-with-retries.js";
import type { CallSettingsOptions } from "../call-settings.js";
import { failWith, streamWith } from "../testing/fake-behaviours.js";
import { expectProviderFailed, SAMPLE_REQUEST, type ChatModelSubject } from "./chat-model-failure-cases.js";
import { FAST_RETRIES, testEnvironment } from "./test-environment.js";

/** What the stream cases need besides the failure cases' subject. */
export interface StreamSubject extends ChatModelSubject {
  /** Checks that the request body asked the provider for a stream (with usage, where that must be asked). */
  expectStreamRequest(body: unknown): void;
  /** The usage the provider reports for a scripted `{ inputTokens: 11, outputTokens: 7 }`. */
  reportedUsage: { inputTokens: number; outputTokens: number };
}

/** A pause the fake waits on until the test opens it. */
function gate() {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * The streaming cases every chat model must pass against its fake, whose stream is written in the
 * provider's own wire format and read by the SDK's own stream parser.
 */
export function runChatModelStreamCases(subject: StreamSubject): void {
  describe(`${subject.name}: streaming`, () => {
    let fake: Awaited<ReturnType<ChatModelSubject["start"]>>;
    beforeEach(async () => {
      fake = await subject.start();
    });
    afterEach(async () => {
      await fake.close();
    });
    const model = (settings: CallSettingsOptions = {}) => subject.create(fake.url, { env: testEnvironment(), ...FAST_RETRIES, ...settings });

    test("streams the deltas in order, then finish with the usage, and asks for a stream", async () => {
      fake.route.enqueue(streamWith(["We open ", "at nine", " on Sundays."], { usage: { inputTokens: 11, outputTokens: 7 } }));
      const parts: ChatStreamPart[] = [];
      for await (const part of model().stream(SAMPLE_REQUEST)) parts.push(part);
      expect(parts).toEqual([
        { type: "delta", text: "We open " },
        { type: "delta", text: "at nine" },
        { type: "delta", text: " on Sundays." },
        { type: "finish", usage: subject.reportedUsage },
      ]);
      subject.expectStreamRequest(fake.route.requests[0]?.body);
    });

    test("hands each delta on as it arrives, before the provider has written the rest", async () => {
      const rest = gate();
      fake.route.enqueue(streamWith(["First", rest.promise, " then the rest."]));
      const iterator = model().stream(SAMPLE_REQUEST)[Symbol.asyncIterator]();
      // The fake holds the rest back until the first delta has reached this reader.
      await expect(iterator.next()).resolves.toEqual({ done: false, value: { type: "delta", text: "First" } });
      rest.open();
      await expect(iterator.next()).resolves.toEqual({ done: false, value: { type: "delta", text: " then the rest." } });
      await expect(iterator.next()).resolves.toMatchObject({ done: false, value: { type: "finish" } });
      await expect(iterator.next()).resolves.toMatchObject({ done: true });
    });

    test("an error before the first token is retried, then the reply streams", async () => {
      fake.route.enqueue(failWith(503), streamWith(["Second ", "time."]));
      const texts: string[] = [];
      for await (const part of model().stream(SAMPLE_REQUEST)) if (part.type === "delta") texts.push(part.text);
      expect(texts.join("")).toBe("Second time.");
      expect(fake.route.requestCount).toBe(2);
    });

    test("a refusal before the first token fails as provider_failed, not retried", async () => {
      fake.route.enqueue(failWith(401));
      const error = await expectProviderFailed(drain(model().stream(SAMPLE_REQUEST)));
      expect(error.upstreamStatus).toBe(401);
      expect(fake.route.requestCount).toBe(1);
    });

    test("a stream that breaks half-way fails as provider_failed after its deltas, and is not retried", async () => {
      fake.route.enqueue(streamWith(["Half of ", "an answer"], { end: "reset" }));
      const seen: string[] = [];
      await expectProviderFailed(drain(model().stream(SAMPLE_REQUEST), seen));
      expect(seen.join("")).toBe("Half of an answer");
      expect(fake.route.requestCount).toBe(1);
    });

    test("the provider's error event in the middle of a stream fails as provider_failed", async () => {
      fake.route.enqueue(streamWith(["Half "], { end: "error" }));
      const seen: string[] = [];
      await expectProviderFailed(drain(model().stream(SAMPLE_REQUEST), seen));
      expect(seen).toEqual(["Half "]);
      expect(fake.route.requestCount).toBe(1);
    });

    test("silence between two tokens fails at the deadline", async () => {
      fake.route.enqueue(streamWith(["Then nothing"], { end: "hang" }));
      const seen: string[] = [];
      const error = await expectProviderFailed(drain(model({ timeoutMs: 300 }).stream(SAMPLE_REQUEST), seen));
      expect(seen).toEqual(["Then nothing"]);
      // Only the deadline ends it: the fake never writes again.
      expect(error.cause).toBeInstanceOf(DeadlineExceededError);
      expect((error.cause as Error).message).toMatch(/ sent nothing for 300 ms in the middle of a reply\.$/);
    });

    test("the caller's signal ends a stream between two tokens, not retryable", async () => {
      const controller = new AbortController();
      fake.route.enqueue(streamWith(["Before the abort"], { end: "hang" }));
      const seen: string[] = [];
      const stream = model({ timeoutMs: 60_000 }).stream({ ...SAMPLE_REQUEST, signal: controller.signal });
      const error = await expectProviderFailed(
        drain(stream, seen, () => controller.abort(new Error("shutting down"))),
      );
      expect(seen).toEqual(["Before the abort"]);
      expect(error.cause).toMatchObject({ message: "shutting down" });
      expect(error.retryable).toBe(false);
    });
  });
}

/** Reads a stream to its end, noting the deltas; `afterFirst` runs once the first delta is in. */
async function drain(stream: AsyncIterable<ChatStreamPart>, seen: string[] = [], afterFirst?: () => void): Promise<void> {
  for await (const part of stream) {
    if (part.type !== "delta") continue;
    seen.push(part.text);
    if (seen.length === 1) afterFirst?.();
  }
}
