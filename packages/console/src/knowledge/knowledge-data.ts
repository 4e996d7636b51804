import { get, post, remove } from "../api/client.js";
import type { Ingestion, KnowledgeDocument, List, SearchHit } from "../api/types.js";

const documentsPath = (chatbotId: string) => `/chatbots/${encodeURIComponent(chatbotId)}/documents`;

/** Every document of a chatbot (pages of 100). */
export async function listDocuments(chatbotId: string): Promise<KnowledgeDocument[]> {
  const all: KnowledgeDocument[] = [];
  let cursor: string | null = null;
  do {
    const page: List<KnowledgeDocument> = await get<List<KnowledgeDocument>>(documentsPath(chatbotId), { limit: 100, cursor });
    all.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return all;
}

/** Uploads files as `multipart/form-data` (docs/design.md §12); answers 202 with an ingestion. */
export function uploadFiles(chatbotId: string, files: readonly File[]): Promise<Ingestion> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  return post<Ingestion>(documentsPath(chatbotId), form);
}

/** How a URL is read: one page, a sitemap, or the site by its links. */
export type Crawl = "page" | "sitemap" | "site";

/** Adds a URL, a sitemap or a site; answers 202 with an ingestion. */
export function addUrl(chatbotId: string, url: string, crawl: Crawl, maxPages?: number): Promise<Ingestion> {
  return post<Ingestion>(documentsPath(chatbotId), { url, crawl, ...(maxPages ? { max_pages: maxPages } : {}) });
}

export const getIngestion = (id: string) => get<Ingestion>(`/ingestions/${encodeURIComponent(id)}`);
export const deleteDocument = (chatbotId: string, documentId: string) => remove(`${documentsPath(chatbotId)}/${encodeURIComponent(documentId)}`);

/** What retrieval would give the model for this question. */
export const searchKnowledge = (chatbotId: string, query: string) =>
  post<{ data: SearchHit[] }>(`/chatbots/${encodeURIComponent(chatbotId)}/search`, { query, limit: 5 });

/** Whether an ingestion is over. */
export const isFinished = (ingestion: Ingestion) => ingestion.status === "succeeded" || ingestion.status === "failed";
