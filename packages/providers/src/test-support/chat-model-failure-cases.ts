import type { ChatModel, ChatRequest, ParleyError } from "@parley/core";
import { isParleyError } from "@parley/core";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DeadlineExceededError } from "../call-with-retries.js";
import type { CallSettingsOptions } from "../call-settings.js";
import { answerMalformedJson, failWith, hangForever, replyWith, resetConnection } from "../testing/fake-behaviours.js";
import type { FakeRoute } from "../testing/fake-server.js";
import { closedOrigin, countingFetch, FAST_RETRIES, TEST_API_KEY, testEnvironment } from "./test-environment.js";

/** How the shared cases reach one provider. */
export interface ChatModelSubject {
  name: string;
  /** Starts the provider's fake; `route` is its chat endpoint. */
  start(): Promise<{ url: string; route: FakeRoute; close(): Promise<void> }>;
  /** The base URL or host the SDK wants for a server at `origin`. */
  urlFor(origin: string): string;
  /** The model under test, pointed at `url`, with the test key and an empty environment. */
  create(url: string, settings: CallSettingsOptions): ChatModel;
  /** Statuses that must be retried (429, 500, 503, and 529 for Anthropic). */
  retryableStatuses: number[];
  /** Whether the SDK exposes response headers (ollama's errors do not, so no Retry-After). */
  readsRetryAfter: boolean;
}

export const PROVIDER_FAILED_DETAIL = "The language model provider failed to answer.";
const UPSTREAM_TEXT = "upstream says: secret internal trace";

/** A short conversation: a user turn, the assistant's answer, and the current message. */
export const SAMPLE_REQUEST: ChatRequest = {
  model: "fake-model-1",
  system: "You are Parley's test bot.",
  messages: [
    { role: "user", content: "What are your opening hours?" },
    { role: "assistant", content: "We open at nine." },
    { role: "user", content: "And on Sundays?" },
  ],
  maxTokens: 321,
};

/** Awaits a call that must fail and returns its provider_failed error, checking what leaks. */
export async function expectProviderFailed(call: Promise<unknown>): Promise<ParleyError> {
  const error = await call.then(
    () => expect.fail("the call should have failed"),
    (failure: unknown) => failure,
  );
  if (!isParleyError(error, "provider_failed")) throw error;
  expect(error.detail).toBe(PROVIDER_FAILED_DETAIL);
  expect(error.message).toBe(PROVIDER_FAILED_DETAIL);
  for (const text of [error.detail, error.message]) {
    expect(text).not.toContain(TEST_API_KEY);
    expect(text).not.toContain(UPSTREAM_TEXT);
  }
  return error;
}

/** The failure cases every chat model must pass against its fake. */
export function runChatModelFailureCases(subject: ChatModelSubject): void {
  describe(`${subject.name}: failures`, () => {
    let fake: Awaited<ReturnType<ChatModelSubject["start"]>>;
    beforeEach(async () => {
      fake = await subject.start();
    });
    afterEach(async () => {
      await fake.close();
    });
    const model = (settings: CallSettingsOptions = {}) => subject.create(fake.url, { env: testEnvironment(), ...FAST_RETRIES, ...settings });

    test("401 is not retried", async () => {
      fake.route.enqueue(failWith(401, { message: UPSTREAM_TEXT }));
      const error = await expectProviderFailed(model().complete(SAMPLE_REQUEST));
      expect(error.upstreamStatus).toBe(401);
      expect(error.retryable).toBe(false);
      expect(fake.route.requestCount).toBe(1);
    });

    for (const status of subject.retryableStatuses) {
      test(`${status} is retried, then the reply is returned`, async () => {
        fake.route.enqueue(failWith(status, { message: UPSTREAM_TEXT }), replyWith("Second time lucky."));
        await expect(model().complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "Second time lucky." });
        expect(fake.route.requestCount).toBe(2);
      });

      test(`${status} on every attempt gives up after the retries`, async () => {
        fake.route.respondWith(failWith(status, { message: UPSTREAM_TEXT }));
        const error = await expectProviderFailed(model({ maxRetries: 2 }).complete(SAMPLE_REQUEST));
        expect(error.upstreamStatus).toBe(status);
        expect(error.retryable).toBe(true);
        expect(fake.route.requestCount).toBe(3);
      });
    }

    test("a 200 with malformed JSON fails without a retry", async () => {
      fake.route.enqueue(answerMalformedJson());
      const error = await expectProviderFailed(model().complete(SAMPLE_REQUEST));
      expect(error.retryable).toBe(false);
      expect(fake.route.requestCount).toBe(1);
    });

    test("a reset connection is retried", async () => {
      fake.route.enqueue(resetConnection(), replyWith("After the reset."));
      await expect(model().complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "After the reset." });
      expect(fake.route.requestCount).toBe(2);
    });

    test("connection refused is retried, then fails as retryable", async () => {
      const counter = countingFetch();
      const refused = subject.create(subject.urlFor(await closedOrigin()), { env: testEnvironment(), ...FAST_RETRIES, fetch: counter.fetch });
      const error = await expectProviderFailed(refused.complete(SAMPLE_REQUEST));
      expect(error.retryable).toBe(true);
      expect(error.upstreamStatus).toBeUndefined();
      expect(counter.calls).toBe(3);
    });

    test("a server that never answers fails at the deadline", async () => {
      fake.route.respondWith(hangForever());
      const startedAt = performance.now();
      const error = await expectProviderFailed(model({ timeoutMs: 200 }).complete(SAMPLE_REQUEST));
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(190);
      // Ended by the 200 ms deadline, not by anything else (the fake never answers).
      expect(error.cause).toBeInstanceOf(DeadlineExceededError);
      expect((error.cause as Error).message).toMatch(/ did not answer within 200 ms\.$/);
      expect(error.retryable).toBe(true);
    });

    test("the deadline bounds all attempts together", async () => {
      fake.route.respondWith(failWith(503, { delayMs: 80 }));
      const error = await expectProviderFailed(model({ timeoutMs: 200, maxRetries: 10 }).complete(SAMPLE_REQUEST));
      // The deadline ends the call: it cuts an attempt (DeadlineExceededError), or the next wait
      // would pass it and the call gives up with the last 503. Either way, each attempt takes at
      // least 80 ms, so at most three start within 200 ms; ignoring the deadline would make 11.
      expect(error.cause instanceof DeadlineExceededError || error.upstreamStatus === 503).toBe(true);
      expect(fake.route.requestCount).toBeGreaterThanOrEqual(1);
      expect(fake.route.requestCount).toBeLessThanOrEqual(3);
    });

    test("the caller's signal ends the call, not retryable", async () => {
      const controller = new AbortController();
      // Aborted once the request is at the fake, which never answers: only the abort ends the call
      // before its 60 s deadline, and then with the caller's reason as the cause.
      fake.route.respondWith(() => (controller.abort(new Error("shutting down")), hangForever()));
      const error = await expectProviderFailed(model({ timeoutMs: 60_000 }).complete({ ...SAMPLE_REQUEST, signal: controller.signal }));
      expect(error.cause).toMatchObject({ message: "shutting down" });
      expect(error.retryable).toBe(false);
      expect(fake.route.requestCount).toBe(1);
    });

    test("an empty reply is passed up as an empty text", async () => {
      fake.route.enqueue(replyWith(""));
      const reply = await model().complete(SAMPLE_REQUEST);
      expect(reply.text).toBe("");
      expect(fake.route.requestCount).toBe(1);
    });

    if (subject.readsRetryAfter) {
      test("Retry-After is honoured when it fits in the deadline", async () => {
        fake.route.enqueue(failWith(429, { headers: { "retry-after-ms": "150" } }), replyWith("Patience paid."));
        const startedAt = performance.now();
        await expect(model().complete(SAMPLE_REQUEST)).resolves.toMatchObject({ text: "Patience paid." });
        expect(performance.now() - startedAt).toBeGreaterThanOrEqual(140);
      });

      test("a Retry-After beyond the deadline gives up at once", async () => {
        fake.route.enqueue(failWith(429, { headers: { "retry-after": "30" } }), replyWith("Too late."));
        const error = await expectProviderFailed(model({ timeoutMs: 2_000 }).complete(SAMPLE_REQUEST));
        // Waiting would have ended at the deadline, with a DeadlineExceededError and no status.
        expect(error.cause).not.toBeInstanceOf(DeadlineExceededError);
        expect(error.upstreamStatus).toBe(429);
        expect(fake.route.requestCount).toBe(1);
      });
    }
  });
}
