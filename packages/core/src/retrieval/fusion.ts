import type { FusionParameters } from "../ports/embedder.js";
import type { SearchHit } from "../ports/search-index.js";

/** A chunk with its fused score and its 1-based rank in each arm (null when absent there). */
export interface FusedHit extends SearchHit {
  fusedScore: number;
  keywordRank: number | null;
  vectorRank: number | null;
}

/**
 * Weighted Reciprocal Rank Fusion: each chunk scores Σ weight / (k + rank) over the arms it
 * appears in, ranks being 1-based. Ties keep the keyword arm's order, then the vector arm's,
 * so the result is deterministic.
 */
export function fuseByReciprocalRank(keywordHits: SearchHit[], vectorHits: SearchHit[], parameters: FusionParameters): FusedHit[] {
  const fused = new Map<string, FusedHit>();
  const add = (hits: SearchHit[], weight: number, arm: "keywordRank" | "vectorRank") => {
    hits.forEach((hit, index) => {
      const rank = index + 1;
      const entry = fused.get(hit.chunkId) ?? { ...hit, fusedScore: 0, keywordRank: null, vectorRank: null };
      if (entry[arm] !== null) return; // a chunk counts once per arm, at its best rank
      entry[arm] = rank;
      entry.fusedScore += weight / (parameters.k + rank);
      fused.set(hit.chunkId, entry);
    });
  };
  add(keywordHits, parameters.keywordWeight, "keywordRank");
  add(vectorHits, parameters.vectorWeight, "vectorRank");
  const arrival = [...fused.values()];
  return arrival
    .map((hit, order) => ({ hit, order }))
    .sort((a, b) => b.hit.fusedScore - a.hit.fusedScore || a.order - b.order)
    .map(({ hit }) => hit);
}
