import { describe, expect, it } from "vitest";
import { createWordTable } from "./word-table.js";

/** The words of a text with their counts, as the table reports them, by spelling. */
function countedBySpelling(table: ReturnType<typeof createWordTable>, spelled: Map<number, string>, text: string): Map<string, number> {
  const { slots, length } = table.countWords(text);
  const result = new Map<string, number>();
  for (let index = 0; index < length; index++) {
    const slot = slots[index]!;
    result.set(spelled.get(table.pool[table.start(slot)]!)!, table.count(slot));
  }
  return result;
}

/** A table whose only feature of a word is a number standing for its spelling (stopword "the" has none). */
function spellingTable() {
  const ids = new Map<string, number>();
  const spelled = new Map<number, string>();
  let next = 0;
  const table = createWordTable((word) => {
    if (word === "the") return [];
    const id = next++;
    ids.set(word, id);
    spelled.set(id, word);
    return [id];
  });
  return { table, spelled, ids };
}

describe("word table", () => {
  it("counts words in first-seen order, lower-cased and NFKC-folded, on ASCII and non-ASCII text alike", () => {
    const { table, spelled } = spellingTable();
    // Expected counts worked out by hand: words are runs of letters and digits, "the" has no features.
    const cases: [string, [string, number][]][] = [
      ["The CAT sat; the cat ran. Cat-like cats 42 times, 42!", [["cat", 3], ["sat", 1], ["ran", 1], ["like", 1], ["cats", 1], ["42", 2], ["times", 1]]],
      ["Café naïve RÉSUMÉ café 😀 x\u0000y ＦＵＬＬ width", [["café", 2], ["naïve", 1], ["résumé", 1], ["x", 1], ["y", 1], ["full", 1], ["width", 1]]],
      [`${"a".repeat(70)} ${"a".repeat(64)}b`, [["a".repeat(64), 2]]], // words are cut at 64 characters
      ["", []],
      ["   ...   ", []],
    ];
    for (const [text, expected] of cases) expect([...countedBySpelling(table, spelled, text)], text).toEqual(expected);
  });

  it("computes a word's features once, however often it is seen", () => {
    const { table, ids } = spellingTable();
    table.countWords("alpha beta alpha");
    table.countWords("ALPHA gamma");
    expect([...ids.keys()]).toEqual(["alpha", "beta", "gamma"]);
  });

  it("grows for a text with more distinct words than the table holds, and counts them all", () => {
    const { table, spelled } = spellingTable();
    const text = Array.from({ length: 250_000 }, (_, index) => `w${index}`).join(" ") + " w7 w249999";
    const counted = countedBySpelling(table, spelled, text);
    expect(counted.size).toBe(250_000);
    expect(counted.get("w7")).toBe(2);
    expect(counted.get("w249999")).toBe(2);
    expect(counted.get("w123456")).toBe(1);
    // The next text starts from a fresh table and still counts right.
    expect([...countedBySpelling(table, spelled, "w1 w1 w2")]).toEqual([["w1", 2], ["w2", 1]]);
  }, 30_000); // a quarter of a million words: CPU-bound, slow on a loaded 2-core machine
});
