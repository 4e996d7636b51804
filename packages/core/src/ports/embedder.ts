/** Weighted Reciprocal Rank Fusion parameters: score = Σ weight / (k + rank). */
export interface FusionParameters {
  /** The RRF constant k; small k favours the top ranks. */
  k: number;
  /** Weight of the BM25 keyword arm. */
  keywordWeight: number;
  /** Weight of the vector arm. */
  vectorWeight: number;
}

/** What a text is embedded for: some models want different prefixes for queries and passages. */
export type EmbeddingPurpose = "query" | "document";

/** Turns texts into vectors of a fixed dimension. */
export interface Embedder {
  /** Stable identity of the vector space (model name and parameters), recorded per chatbot. */
  readonly id: string;
  /** Length of every vector this embedder returns. */
  readonly dimensions: number;
  /** The most texts one {@link embed} call sends at once; the core batches by it. */
  readonly maxBatchSize: number;
  /**
   * How to fuse this embedder's vector ranking with BM25 by default. Declared as data because
   * it depends on the embedder's quality: a lexical hashing embedder must weigh far less than
   * a semantic model.
   */
  readonly fusion: FusionParameters;
  /** One vector per text, in order. */
  embed(texts: string[], purpose: EmbeddingPurpose): Promise<Float32Array[]>;
}
