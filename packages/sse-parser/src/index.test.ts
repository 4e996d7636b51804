import { describe, expect, it } from "vitest";
import { createSseParser } from "./index.js";

describe("createSseParser", () => {
  it("parses events split at any point, skipping keep-alive comments", () => {
    const stream = ': keep-alive\n\nid: 7\nevent: message.received\ndata: {"a":1}\n\nid: 8\r\nevent: message.sent\r\ndata: x\r\ndata: y\r\n\r\n';
    for (let cut = 1; cut < stream.length; cut += 1) {
      const parser = createSseParser();
      const events = [...parser.feed(stream.slice(0, cut)), ...parser.feed(stream.slice(cut))];
      expect(events, `cut at ${cut}`).toEqual([
        { id: "7", event: "message.received", data: '{"a":1}' },
        { id: "8", event: "message.sent", data: "x\ny" },
      ]);
      expect(parser.lastEventId).toBe("8");
    }
  });

  it("keeps the last id for events without one and names untyped events 'message'", () => {
    const parser = createSseParser();
    expect(parser.feed("id: 3\ndata: a\n\ndata: b\n\n")).toEqual([
      { id: "3", event: "message", data: "a" },
      { id: "3", event: "message", data: "b" },
    ]);
  });

  it("returns nothing until the blank line that ends an event", () => {
    const parser = createSseParser();
    expect(parser.feed("id: 1\nevent: x\ndata: half")).toEqual([]);
    expect(parser.lastEventId).toBeUndefined();
    expect(parser.feed("\n\n")).toEqual([{ id: "1", event: "x", data: "half" }]);
    expect(parser.lastEventId).toBe("1");
  });
});
