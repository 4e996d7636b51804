import { describe, expect, it } from "vitest";
import { createAccessLog, type LogSink } from "./log-lines.js";
import { createRedactor } from "./redact.js";

const redact = createRedactor(["my-provider-secret"]);

/** The lines of an access log on a sink that takes objects, and on one that takes serialised members. */
function bothWays(write: (log: ReturnType<typeof createAccessLog>) => void) {
  const objects: Record<string, unknown>[] = [];
  write(createAccessLog((line) => objects.push(line), redact));
  const texts: string[] = [];
  const textSink: LogSink = Object.assign(() => {}, { members: (json: string) => texts.push(`{${json}}`) });
  write(createAccessLog(textSink, redact));
  return { objects, parsed: texts.map((text) => JSON.parse(text) as Record<string, unknown>), texts };
}

describe("createAccessLog", () => {
  it("writes the same fields, in the same order, as text as it does as an object", () => {
    const { objects, parsed } = bothWays((log) => {
      log("trace-1", "GET", "/v1/chatbots", 200, 0.37, "7b0c6d1e-0000-4000-8000-000000000002");
      log("c0ffee", "DELETE", '/v1/odd"path\\', 404, 12, null);
    });
    expect(parsed).toEqual(objects);
    expect(parsed.map((line) => Object.keys(line))).toEqual(objects.map((line) => Object.keys(line)));
    expect(Object.keys(parsed[0]!)).toEqual(["level", "msg", "request_id", "method", "path", "status", "duration_ms", "key_id"]);
  });

  it("redacts secrets and key-shaped text in every string of the text line", () => {
    const { objects, parsed, texts } = bothWays((log) => log("sk-proj-abcdef123456", "GET", `/v1/chatbots/prl_${"p".repeat(43)}/my-provider-secret`, 404, 1, null));
    expect(parsed).toEqual(objects);
    expect(parsed[0]).toMatchObject({ request_id: "[redacted]", path: "/v1/chatbots/[redacted]/[redacted]" });
    expect(texts.join("")).not.toMatch(/sk-proj|prl_p|my-provider-secret/);
  });
});
