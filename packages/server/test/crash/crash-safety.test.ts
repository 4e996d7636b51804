import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runChatKills, runIngestKills, startCrashWorld } from "./crash-rounds.js";

// `npm run crash -- --kills N` runs more rounds, from any seed.
let world: Awaited<ReturnType<typeof startCrashWorld>>;

beforeAll(async () => {
  world = await startCrashWorld();
}, 60_000);

afterAll(async () => {
  await world?.close();
});

describe("kill -9 at random moments", () => {
  it("loses nothing a client was told, during a chat load with webhook retries: 20 kills", async () => {
    const report = await runChatKills(world, { kills: 20, seed: 14 });
    expect(report.problems).toEqual([]);
    expect(report.kills).toBe(20);
    // The kills landed under load: messages were answered, and some requests were cut.
    expect(report.answered).toBeGreaterThan(20);
    expect(report.unanswered).toBeGreaterThan(0);
    expect(report.webhookAttempts).toBeGreaterThan(report.answered);
  }, 120_000);

  it("leaves an interrupted `parley ingest` consistent, and a re-run completes it exactly: 4 kills", async () => {
    const report = await runIngestKills(world, { kills: 4, seed: 15 });
    expect(report.problems).toEqual([]);
    // At least one kill found the ingest half-way (some documents in, not all).
    expect(report.partial).toBeGreaterThan(0);
  }, 120_000);
});
