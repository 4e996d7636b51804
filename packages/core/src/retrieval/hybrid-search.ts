import { embedderMismatch } from "../errors.js";
import type { EmbeddingSpace, HybridHits, HybridQuery, SearchIndex } from "../ports/search-index.js";

/** Refuses an embedder whose space is not the chatbot's (`embedder_mismatch`), before any text is embedded. */
export function checkEmbedderSpace(chatbotId: string, space: EmbeddingSpace, embedder: HybridQuery["embedder"]): void {
  if (space.embedderId !== embedder.id || space.dimensions !== embedder.dimensions) {
    throw embedderMismatch(chatbotId, space.embedderId, embedder.id);
  }
}

/**
 * `SearchIndex.hybridSearch` from the index's single operations, for indexes where a call costs
 * no round trip (in memory, SQLite): the space first (a chatbot without documents embeds
 * nothing), then both arms at once.
 */
export async function hybridSearchInParts(
  index: Pick<SearchIndex, "embeddingSpace" | "keywordSearch" | "vectorSearch">,
  chatbotId: string,
  query: HybridQuery,
): Promise<HybridHits | null> {
  const space = await index.embeddingSpace(chatbotId);
  if (space === null) return null;
  checkEmbedderSpace(chatbotId, space, query.embedder);
  const [keyword, vector] = await Promise.all([
    index.keywordSearch(chatbotId, query.text, query.keywordK),
    query.embedder.embed([query.text], "query").then(([embedding]) => index.vectorSearch(chatbotId, space, embedding!, query.vectorK)),
  ]);
  return { keyword, vector };
}
