import { describe, expect, it } from "vitest";
import { runExample } from "../../../examples/embed-core/main.js";

describe("examples/embed-core", () => {
  it("answers from the ingested document, refuses a blank message and reports its events", async () => {
    const lines: string[] = [];
    const result = await runExample((line) => lines.push(line));
    expect(result.response).toBe("From the docs: Refunds are paid within 14 days of the return.");
    expect(result.sources[0]).toMatchObject({ title: "Refunds", source: "refunds.md", page: null });
    expect(result.deltas.join("")).toBe("From the docs: Parcels ship from Rotterdam in 1 to 5 days.");
    expect(result.deltas.length).toBeGreaterThan(1);
    expect(result.refusal).toBe("invalid_request: message: must be a non-empty string");
    expect(result.events).toEqual(["conversation.started visitor-1", "message.received When do I get my refund?", "message.received How long does shipping take?"]);
    expect(lines).toHaveLength(4);
  });
});
