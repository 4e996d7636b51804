import type { Embedder, FusionParameters } from "../ports/embedder.js";
import type { HitDocument, SearchIndex } from "../ports/search-index.js";
import { fuseByReciprocalRank, type FusedHit } from "../retrieval/fusion.js";
import type { RetrievalSettings } from "../settings.js";
import type { ContextChunk } from "./prompt-builder.js";

/** A chunk chosen for the prompt, with the source of its document (to name the reply's sources). */
export interface SelectedChunk extends ContextChunk {
  source: string;
  /** Its document, when the search read it with the chunk. */
  document?: HitDocument;
}

/** What hybrid retrieval needs. */
export interface RetrieveCandidates {
  searchIndex: SearchIndex;
  embedder: Embedder;
  chatbotId: string;
  query: string;
  /** Overrides the embedder's fusion defaults, field by field. */
  fusion?: Partial<FusionParameters>;
  keywordK?: number;
  vectorK?: number;
}

/**
 * Hybrid retrieval: BM25 top `keywordK` and vector top `vectorK`, fused by weighted Reciprocal
 * Rank Fusion with the embedder's declared defaults. A chatbot with no documents is not
 * searched (and the query is not embedded).
 */
export async function retrieveCandidates(input: RetrieveCandidates): Promise<FusedHit[]> {
  const { searchIndex, embedder } = input;
  const query = { text: input.query, keywordK: input.keywordK ?? 20, vectorK: input.vectorK ?? 20, embedder };
  const hits = await searchIndex.hybridSearch(input.chatbotId, query);
  if (hits === null) return [];
  return fuseByReciprocalRank(hits.keyword, hits.vector, { ...embedder.fusion, ...input.fusion });
}

/** Characters per token, a conservative average for English prose. */
const CHARS_PER_TOKEN = 4;

/**
 * The context for the prompt: the best fused chunks, at most `maxChunks`, while they fit in
 * the token budget. The first chunk is always kept (cut to the budget if it alone exceeds it).
 */
export function selectContext(hits: FusedHit[], settings: Pick<RetrievalSettings, "maxChunks" | "contextTokenBudget">): SelectedChunk[] {
  const budget = settings.contextTokenBudget * CHARS_PER_TOKEN;
  const chosen: SelectedChunk[] = [];
  let used = 0;
  for (const hit of hits) {
    if (chosen.length >= settings.maxChunks) break;
    const title = hit.title.trim() || hit.source;
    const size = title.length + hit.text.length;
    if (used + size > budget) {
      if (chosen.length === 0) chosen.push({ title, text: hit.text.slice(0, Math.max(0, budget - title.length)), source: hit.source, ...documentOf(hit) });
      continue; // a smaller chunk further down may still fit
    }
    chosen.push({ title, text: hit.text, source: hit.source, ...documentOf(hit) });
    used += size;
  }
  return chosen;
}

const documentOf = (hit: FusedHit): { document?: HitDocument } => (hit.document === undefined ? {} : { document: hit.document });

/** Retrieval and selection as chat runs them. */
export async function retrieveContext(
  input: Omit<RetrieveCandidates, "fusion" | "keywordK" | "vectorK">,
  settings: RetrievalSettings,
): Promise<SelectedChunk[]> {
  const hits = await retrieveCandidates({
    ...input,
    fusion: settings.fusion,
    keywordK: settings.keywordCandidates,
    vectorK: settings.vectorCandidates,
  });
  return selectContext(hits, settings);
}
