import { describe, expect, it } from "vitest";
import { chunkSections, chunkText } from "./chunker.js";

const sentence = (index: number) => `Sentence number ${index} talks about topic ${index} in some detail.`;

describe("chunkText", () => {
  it("gives nothing for empty or blank text", () => {
    expect(chunkText("")).toEqual([]);
    expect(chunkText(" \n\n \t ")).toEqual([]);
  });

  it("keeps short text whole, one chunk", () => {
    expect(chunkText("  Hello there.\n\nSecond paragraph.  ")).toEqual(["Hello there.\n\nSecond paragraph."]);
  });

  it("cuts long text into chunks of at most maxChars, at sentence ends, with whole-sentence overlap", () => {
    const text = Array.from({ length: 40 }, (_, index) => sentence(index)).join(" ");
    const chunks = chunkText(text, { maxChars: 300, overlapChars: 100 });
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(300);
      expect(chunk).toMatch(/^Sentence number \d+ .*detail\.$/s);
    }
    // Each chunk starts with the last sentence of the one before it.
    for (let index = 1; index < chunks.length; index += 1) {
      const lastOfPrevious = chunks[index - 1]!.match(/Sentence number \d+[^.]*\.$/)![0];
      expect(chunks[index]!.startsWith(lastOfPrevious)).toBe(true);
    }
    // Nothing is lost: every sentence appears in some chunk.
    for (let index = 0; index < 40; index += 1) expect(chunks.some((chunk) => chunk.includes(sentence(index)))).toBe(true);
  });

  it("prefers paragraph boundaries", () => {
    const paragraph = (label: string) => `${label} starts here. ${"Words fill it up. ".repeat(8).trim()}`;
    const chunks = chunkText([paragraph("Alpha"), paragraph("Beta"), paragraph("Gamma")].join("\n\n"), { maxChars: 320, overlapChars: 0 });
    expect(chunks.map((chunk) => chunk.slice(0, 5))).toEqual(["Alpha", "Beta ", "Gamma"]);
  });

  it("splits one huge paragraph with no sentence end at word boundaries, never mid-word", () => {
    const words = Array.from({ length: 2000 }, (_, index) => `word${index}`);
    const chunks = chunkText(words.join(" "), { maxChars: 800 });
    expect(chunks.length).toBeGreaterThan(10);
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(800);
      for (const word of chunk.split(" ")) expect(word).toMatch(/^word\d+$/);
    }
    expect(new Set(chunks.flatMap((chunk) => chunk.split(" ")))).toEqual(new Set(words));
  });

  it("cuts a single word longer than a chunk between code points, never inside an emoji", () => {
    const blob = "😀".repeat(500); // 1,000 UTF-16 units
    const chunks = chunkText(`Before. ${blob} After.`, { maxChars: 300, overlapChars: 0 });
    for (const chunk of chunks) {
      expect(chunk.length).toBeLessThanOrEqual(300);
      expect(chunk).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/); // no lone high surrogate
    }
    expect(chunks.join("").replace(/[^😀]/gu, "")).toBe(blob);
  });

  it("handles unicode text: accents, CJK and right-to-left scripts", () => {
    const text = "Café crème à Paris. 東京は日本の首都です。 مرحبا بالعالم.";
    const chunks = chunkText(text);
    expect(chunks).toEqual([text]);
    const many = chunkText(`${"東京は日本の首都です。".repeat(100)}`, { maxChars: 200 });
    for (const chunk of many) expect(chunk.length).toBeLessThanOrEqual(200);
    expect(many.join("").replaceAll(" ", "")).toContain("東京は日本の首都です。");
  });
});

describe("chunkSections", () => {
  it("chunks each section on its own and starts every chunk with its label", () => {
    const page = (fact: string) => `${fact} ${"Filler sentence about kettles. ".repeat(6).trim()}`;
    const chunks = chunkSections(
      [
        { label: "page 1", text: page("Page one talks about boilers.") },
        { label: "page 2", text: "" },
        { label: "page 3", text: page("The warranty lasts 7 years.") },
      ],
      { maxChars: 120, overlapChars: 0 },
    );
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(120);
    // No chunk mixes two pages, and an empty page gives no chunk.
    expect(chunks.filter((chunk) => chunk.startsWith("(page 1) ")).join(" ")).not.toMatch(/warranty/);
    expect(chunks.filter((chunk) => chunk.startsWith("(page 2) "))).toEqual([]);
    expect(chunks.find((chunk) => chunk.includes("7 years"))).toBe("(page 3) The warranty lasts 7 years. Filler sentence about kettles. Filler sentence about kettles.");
    expect(chunks.every((chunk) => /^\(page [13]\) /.test(chunk))).toBe(true);
  });

  it("leaves unlabelled sections bare, and shortens a very long label", () => {
    const heading = "A heading that goes on and on ".repeat(5).trim();
    const [bare, labelled] = chunkSections([{ text: "Intro text." }, { label: `  ${heading}\n`, text: "Body text." }]);
    expect(bare).toBe("Intro text.");
    expect(labelled).toBe(`(${heading.slice(0, 79).trimEnd()}…) Body text.`);
  });
});

describe("line breaks inside a paragraph", () => {
  it("keeps list items and table rows on their own lines", () => {
    expect(chunkText("Plans:\n- Standard | 2 days\n- Platinum | 15 minutes\n\nAfter.")).toEqual(["Plans:\n- Standard | 2 days\n- Platinum | 15 minutes\n\nAfter."]);
    expect(chunkText("One sentence. Two on the same line.")).toEqual(["One sentence. Two on the same line."]);
  });
});
