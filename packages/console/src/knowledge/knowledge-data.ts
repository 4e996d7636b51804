import { api, postForm, unwrap } from "../api/client.js";
import type { Ingestion, KnowledgeDocument } from "../api/types.js";

const chatbot = (chatbotId: string) => ({ path: { chatbot_id: chatbotId } });

/** Every document of a chatbot (pages of 100). */
export async function listDocuments(chatbotId: string): Promise<KnowledgeDocument[]> {
  const all: KnowledgeDocument[] = [];
  let cursor: string | undefined;
  do {
    const page = await unwrap(api.GET("/v1/admin/chatbots/{chatbot_id}/documents", { params: { ...chatbot(chatbotId), query: { limit: 100, cursor } } }));
    all.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return all;
}

/** Uploads files as `multipart/form-data` (docs/design.md §12); answers 202 with an ingestion. */
export function uploadFiles(chatbotId: string, files: readonly File[]): Promise<Ingestion> {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  return postForm<Ingestion>(`/v1/admin/chatbots/${encodeURIComponent(chatbotId)}/documents`, form);
}

/** How a URL is read: one page, a sitemap, or the site by its links. */
export type Crawl = "page" | "sitemap" | "site";

/** Adds a URL, a sitemap or a site; answers 202 with an ingestion. */
export function addUrl(chatbotId: string, url: string, crawl: Crawl): Promise<Ingestion> {
  return unwrap(api.POST("/v1/admin/chatbots/{chatbot_id}/documents", { params: chatbot(chatbotId), body: { url, crawl } }));
}

export const getIngestion = (id: string) => unwrap(api.GET("/v1/admin/ingestions/{ingestion_id}", { params: { path: { ingestion_id: id } } }));
export const deleteDocument = (chatbotId: string, documentId: string) =>
  unwrap(api.DELETE("/v1/admin/chatbots/{chatbot_id}/documents/{document_id}", { params: { path: { chatbot_id: chatbotId, document_id: documentId } } }));

/** What retrieval would give the model for this question. */
export const searchKnowledge = (chatbotId: string, query: string) =>
  unwrap(api.POST("/v1/admin/chatbots/{chatbot_id}/search", { params: chatbot(chatbotId), body: { query, limit: 5 } }));

/** Whether an ingestion is over. */
export const isFinished = (ingestion: Ingestion) => ingestion.status === "succeeded" || ingestion.status === "failed";
