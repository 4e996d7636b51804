import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUZZED_ROUTES } from "./fuzz-requests.js";
import { startFuzzTarget, type FuzzTarget } from "./fuzz-target.js";
import { runFuzzCases } from "./run-fuzz-cases.js";

// A fixed-seed slice of the fuzz (`npm run fuzz -- --runs N` runs as many as asked, from any seed).
const SEED = 20_261_124;
const RUNS = 800;

let target: FuzzTarget;

beforeAll(async () => {
  target = await startFuzzTarget();
});

afterAll(async () => {
  await target?.close();
});

describe("fuzzing every route with hostile requests", () => {
  it("covers every route of the server's table, the health check included", () => {
    const covered = FUZZED_ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(covered).toEqual(expect.arrayContaining(["GET /v1/chatbots", "GET /v1/chatbots/([^/]+)", "POST /v1/chatbots/([^/]+)/chat", "POST /v1/admin/conversations/([^/]+)/messages", "GET /healthz", "GET /console", "GET /widget.js", "GET /widget/{chatbot_id}", "POST /v1/widget/([^/]+)/sessions", "POST /v1/widget/([^/]+)/messages", "POST /v1/widget/([^/]+)/messages/([^/]+)/feedback"]));
  });

  it(`answers ${RUNS} seeded cases: never a 500 or a dropped connection, errors exactly {"detail"}, nothing leaked, the database intact`, async () => {
    const report = await runFuzzCases(target, { runs: RUNS, seed: SEED });
    expect(report.failure).toBeNull();
    expect(report.runs).toBe(RUNS);
    // The slice reaches the handlers and the parser's refusals alike, not only one kind of answer.
    for (const status of ["200", "201", "204", "400", "401", "403", "404", "405", "413", "415", "422"]) expect(report.statuses[status] ?? 0, `status ${status}`).toBeGreaterThan(0);
  });
});
