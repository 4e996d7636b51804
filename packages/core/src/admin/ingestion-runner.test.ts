import { describe, expect, it } from "vitest";
import { setup } from "../../test/harness.js";
import { createLocalEmbedder } from "../retrieval/local-embedder.js";
import type { Chatbot } from "../domain/chatbot.js";
import type { KnowledgeItem, KnowledgeRequest } from "../domain/knowledge.js";
import type { KnowledgeSources } from "../ports/knowledge-sources.js";
import { millisToMicros } from "../support/time.js";
import { INGESTION_LEASE_MS, INGESTION_MAX_RUNS, queueIngestion } from "./ingestion-jobs.js";
import { createIngestionRunner } from "./ingestion-runner.js";

/** Sources whose files are read only when the test releases them, recording the order reads start in. */
function gatedSources() {
  const started: string[] = [];
  const gates = new Map<string, () => void>();
  const waiters: (() => void)[] = [];
  const sources: KnowledgeSources = {
    estimate: (request) => (request.kind === "files" ? request.files.length : 1),
    async *read(request: KnowledgeRequest): AsyncIterable<KnowledgeItem> {
      if (request.kind !== "files") return;
      for (const file of request.files) {
        started.push(file.name);
        for (const wake of waiters.splice(0)) wake();
        await new Promise<void>((resolve) => gates.set(file.name, resolve));
        yield { document: { source: file.name, title: file.name, text: `The text of ${file.name}.` }, type: "text", bytes: 10 };
      }
    },
  };
  /** Resolves once `count` reads have started. */
  const startedCount = async (count: number) => {
    while (started.length < count) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  const release = (name: string) => gates.get(name)?.();
  return { sources, started, startedCount, release };
}

const files = (...names: string[]): KnowledgeRequest => ({ kind: "files", files: names.map((name) => ({ name, path: `/uploads/${name}` })) });

/** The harness's user with its chatbot, another user with one, gated sources, and the runner's dependencies. */
async function twoUsers() {
  const context = await setup();
  const other = await context.parley.admin.createUser({ email: "other@example.com" });
  const otherBot: Chatbot = await context.parley.admin.createChatbot({ userId: other.id, name: "Other", provider: "openai", model: "gpt-test" });
  const dependencies = { storage: context.storage, searchIndex: context.searchIndex, embedder: createLocalEmbedder(), ids: { uuid: () => crypto.randomUUID() }, clock: context.clock };
  return { context, otherBot, gated: gatedSources(), dependencies };
}

describe("the ingestion runner (issue 24)", () => {
  it("starts another user's first document while one user's queue holds a runner, whatever the queue's order", async () => {
    const { context, otherBot, gated, dependencies } = await twoUsers();
    // The greedy user queues three ingestions of several documents each, before the other's one.
    for (const batch of [["a1", "a2"], ["a3", "a4"], ["a5", "a6"]]) await queueIngestion(dependencies as never, context.chatbot, files(...batch));
    context.clock.advance(1);
    await queueIngestion(dependencies as never, otherBot, files("b1"));
    const runner = createIngestionRunner(dependencies as never, { sources: gated.sources, concurrency: 2 });
    runner.start();
    await gated.startedCount(2);
    // First come, first served would have read the greedy user's first two ingestions.
    expect(gated.started).toEqual(["a1", "b1"]);
    gated.release("b1");
    gated.release("a1");
    await gated.startedCount(3);
    expect(gated.started).toEqual(["a1", "b1", "a2"]);
    for (const name of ["a2", "a3", "a4", "a5", "a6"]) {
      while (!gated.started.includes(name)) await gated.startedCount(gated.started.length + 1);
      gated.release(name);
    }
    await runner.stop();
  });

  it("gives one user as many runners as perUser allows (PARLEY_INGESTIONS_PER_USER), no more", async () => {
    const { context, otherBot, gated, dependencies } = await twoUsers();
    for (const batch of [["a1"], ["a2"], ["a3"]]) await queueIngestion(dependencies as never, context.chatbot, files(...batch));
    context.clock.advance(1);
    await queueIngestion(dependencies as never, otherBot, files("b1"));
    const runner = createIngestionRunner(dependencies as never, { sources: gated.sources, concurrency: 4, perUser: 2 });
    runner.start();
    await gated.startedCount(3);
    // Two of the greedy user's ingestions at once and the other's; the third waits for a share.
    expect([...gated.started].sort()).toEqual(["a1", "a2", "b1"]);
    gated.release("a1");
    await gated.startedCount(4);
    expect(gated.started[3]).toBe("a3");
    for (const name of ["a2", "a3", "b1"]) gated.release(name);
    await runner.stop();
  });

  it(`gives up an ingestion whose runner lost its lease ${INGESTION_MAX_RUNS} times, with its reason`, async () => {
    const context = await setup();
    const dependencies = { storage: context.storage, searchIndex: context.searchIndex, embedder: createLocalEmbedder(), ids: { uuid: () => crypto.randomUUID() }, clock: context.clock };
    const ingestion = await queueIngestion(dependencies as never, context.chatbot, files("poison.html"));
    // Each run dies (the process stops) before it finishes: the lease ends and the next claim takes it up.
    for (let run = 0; run < INGESTION_MAX_RUNS; run += 1) {
      const now = context.clock.now();
      expect(await context.storage.claimIngestion({ now, leaseUntil: now + millisToMicros(INGESTION_LEASE_MS), perUser: 1 })).toMatchObject({ id: ingestion.id, attempts: run + 1 });
      context.clock.advance(INGESTION_LEASE_MS);
    }
    const runner = createIngestionRunner(dependencies as never, { sources: gatedSources().sources });
    expect(await runner.runOnce()).toBe(1);
    expect(await context.storage.getIngestion(ingestion.id)).toMatchObject({
      status: "failed",
      errors: [{ source: "poison.html", detail: `Reading stopped ${INGESTION_MAX_RUNS} times before it finished (its server stopped or lost it each time); the ingestion is given up.` }],
    });
    // Given up for good: nothing is claimed again.
    expect(await runner.runOnce()).toBe(0);
  });
});
