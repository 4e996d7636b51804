import { describe, expect, it } from "vitest";
import { createLocalEmbedder } from "./local-embedder.js";

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, index) => sum + value * b[index]!, 0);
const norm = (vector: Float32Array) => Math.sqrt(cosine(vector, vector));

describe("local embedder", () => {
  it("returns one L2-normalised vector of the declared dimension per text", async () => {
    const embedder = createLocalEmbedder();
    const vectors = await embedder.embed(["Refunds are paid within 14 days.", "Shipping to Europe"], "document");
    expect(embedder.dimensions).toBe(1024);
    expect(vectors).toHaveLength(2);
    for (const vector of vectors) {
      expect(vector).toBeInstanceOf(Float32Array);
      expect(vector).toHaveLength(1024);
      expect(norm(vector)).toBeCloseTo(1, 5);
    }
  });

  it("is deterministic across instances", async () => {
    const [first] = await createLocalEmbedder().embed(["Déjà vu: the same text, twice 🙂"], "query");
    const [second] = await createLocalEmbedder().embed(["Déjà vu: the same text, twice 🙂"], "document");
    expect([...first!]).toEqual([...second!]);
  });

  it("puts similar texts closer than unrelated ones", async () => {
    const [query, similar, unrelated] = await createLocalEmbedder().embed(
      ["how are refunds paid", "Refund payments are made within 14 days", "The shop opens at nine in the morning"],
      "document",
    );
    expect(cosine(query!, similar!)).toBeGreaterThan(cosine(query!, unrelated!) + 0.2);
  });

  it("matches inflected and misspelt words through stems and character n-grams", async () => {
    const [query, inflected, other] = await createLocalEmbedder().embed(["vaccination"], "document").then(async ([q]) => [
      q,
      ...(await createLocalEmbedder().embed(["vaccinations vaccinated", "bicycle"], "document")),
    ]);
    expect(cosine(query!, inflected!)).toBeGreaterThan(0.3);
    expect(cosine(query!, inflected!)).toBeGreaterThan(cosine(query!, other!));
  });

  it("gives the zero vector for text without words, never NaN", async () => {
    const [empty, stopwords] = await createLocalEmbedder().embed(["", "the of and"], "query");
    expect([...empty!].every((value) => value === 0)).toBe(true);
    expect([...stopwords!].every((value) => value === 0)).toBe(true);
  });

  it("encodes its parameters in its id", () => {
    expect(createLocalEmbedder().id).toBe("local-hash-v1-1024-w1-c3-5x0.5");
    expect(createLocalEmbedder({ dimensions: 512 }).id).not.toBe(createLocalEmbedder().id);
    expect(createLocalEmbedder({ ngramWeight: 0.3 }).id).not.toBe(createLocalEmbedder().id);
    expect(createLocalEmbedder({ dimensions: 512 }).dimensions).toBe(512);
    expect(() => createLocalEmbedder({ dimensions: 1000 })).toThrow(RangeError);
  });

  it("declares light vector weight in its fusion defaults", () => {
    const { fusion } = createLocalEmbedder();
    expect(fusion.keywordWeight).toBeGreaterThan(fusion.vectorWeight);
  });

  it("embeds a 20,000-character text to a unit vector", async () => {
    const text = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(350);
    const [vector] = await createLocalEmbedder().embed([text], "document");
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  it("gives each text of a batch the vector it gets alone, in a view of its own", async () => {
    const texts = ["Refunds are paid within 14 days.", "", "Café crème, naïvely 😀", "Shipping to Europe by courier"];
    const embedder = createLocalEmbedder();
    const batch = await embedder.embed(texts, "document");
    for (const [index, text] of texts.entries()) {
      const [alone] = await createLocalEmbedder().embed([text], "document");
      expect([...batch[index]!]).toEqual([...alone!]);
      expect(batch[index]!.length).toBe(embedder.dimensions);
    }
    batch[0]!.fill(7); // the views do not overlap
    expect([...batch[3]!]).toEqual([...(await embedder.embed([texts[3]!], "document"))[0]!]);
  });
});
