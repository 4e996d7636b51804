import { describe, expect, it } from "vitest";
import { DocumentError } from "../src/document-error.js";
import { readerErrorDetail } from "../src/reader-errors.js";

describe("readerErrorDetail: every error a parser throws is a per-document detail", () => {
  it("keeps a DocumentError's own words", () => {
    expect(readerErrorDetail(new DocumentError("The PDF is encrypted; it cannot be read."))).toBe("The PDF is encrypted; it cannot be read.");
  });

  it("calls a stack overflow too complex", () => {
    let depth = 0;
    const recurse = (): number => ++depth + recurse();
    let overflow: unknown;
    try {
      recurse();
    } catch (error) {
      overflow = error;
    }
    expect(overflow).toBeInstanceOf(RangeError);
    expect(readerErrorDetail(overflow)).toBe("The document is too complex to read.");
  });

  it("calls anything else unreadable, without the parser's own message", () => {
    const damaged = (() => {
      try {
        return (null as unknown as { pages: number }).pages;
      } catch (error) {
        return error;
      }
    })();
    expect(damaged).toBeInstanceOf(TypeError);
    for (const error of [damaged, new Error("Invalid XRef stream header at /home/x/upload.pdf"), "a string", undefined]) {
      expect(readerErrorDetail(error)).toBe("The document could not be read.");
    }
  });
});
