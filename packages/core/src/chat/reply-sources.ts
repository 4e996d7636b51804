import type { MessageSource } from "../domain/conversation.js";
import type { HitDocument, SearchIndex } from "../ports/search-index.js";

/** A chunk of the prompt's context with the document it came from. */
export interface SourcedChunk {
  source: string;
  text: string;
  /** Its document, when the search read it with the chunk: then not looked up again. */
  document?: HitDocument;
}

/** The label the chunker puts before each chunk of a PDF page (`(page 3) …`, see `chunkSections`). */
const PAGE_LABEL = /^\(page (\d+)\) /;

/**
 * The documents the prompt's context came from, in the order the prompt used them, each once.
 * A document is named by the index's own record (id, list title, type), as the search read it
 * with the chunk or else looked up; one removed since the search is left out rather than cited
 * without an id. `page` is the page of the first chunk the
 * prompt used from a PDF, and null for every other type.
 */
export async function replySources(searchIndex: SearchIndex, chatbotId: string, context: SourcedChunk[]): Promise<MessageSource[]> {
  const firstChunks = new Map<string, SourcedChunk>();
  for (const chunk of context) if (!firstChunks.has(chunk.source)) firstChunks.set(chunk.source, chunk);
  const documents = await Promise.all(
    [...firstChunks.entries()].map(([source, chunk]) => chunk.document ?? searchIndex.getDocument(chatbotId, { source })),
  );
  const sources: MessageSource[] = [];
  for (const [index, chunk] of [...firstChunks.values()].entries()) {
    const document = documents[index];
    if (!document) continue;
    const page = document.type === "pdf" ? PAGE_LABEL.exec(chunk.text)?.[1] : undefined;
    sources.push({ documentId: document.id, title: document.title, source: chunk.source, page: page === undefined ? null : Number(page) });
  }
  return sources;
}
