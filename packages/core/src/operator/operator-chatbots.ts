import type { Chatbot } from "../domain/chatbot.js";
import type { Caller } from "../domain/user.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, notFound } from "../errors.js";
import type { KnowledgeRequest } from "../domain/knowledge.js";
import { changeChatbot, createChatbot, deleteChatbot, rotateWidgetSecret, type ChatbotSettingsInput } from "../admin/chatbot-admin.js";
import { checkKnowledgeRequest, queueIngestion } from "../admin/ingestion-jobs.js";
import { findOwnedChatbot } from "../chatbots/owned-chatbot.js";
import { retrieveCandidates } from "../chat/retrieve-context.js";
import { isUuid } from "../support/ids.js";
import { decodeCursor, encodeCursor, pageOf, pageOfAll, pageSize, type PageRequest } from "./pages.js";
import { toAdminChatbot, toDocumentView, toIngestionView } from "./views.js";

/** The most chunks the retrieval test returns. */
export const MAX_SEARCH_RESULTS = 50;

async function adminView(dependencies: Pick<Dependencies, "searchIndex">, chatbot: Chatbot) {
  return toAdminChatbot(chatbot, await dependencies.searchIndex.documentStats(chatbot.id));
}

/** The caller's chatbots in the admin view, newest first. */
export async function listChatbots(dependencies: Dependencies, caller: Caller, page: PageRequest) {
  const chatbots = await dependencies.storage.listChatbots(caller.user.id);
  const listed = pageOfAll("chatbots", chatbots, page, (chatbot) => chatbot);
  return { data: await Promise.all(listed.data.map((chatbot) => adminView(dependencies, chatbot))), next_cursor: listed.next_cursor };
}

/** Creates a chatbot for the caller. */
export async function createOwnChatbot(dependencies: Dependencies, caller: Caller, input: Omit<Parameters<typeof createChatbot>[1], "userId">) {
  return adminView(dependencies, await createChatbot(dependencies, { ...input, userId: caller.user.id }));
}

/** One of the caller's chatbots in the admin view. */
export async function getChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string) {
  return adminView(dependencies, await findOwnedChatbot(dependencies, caller.user, chatbotId));
}

/** Changes one of the caller's chatbots. */
export async function updateChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string, input: ChatbotSettingsInput) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  return adminView(dependencies, await changeChatbot(dependencies, chatbot.id, input));
}

/** Makes a new identity secret for one of the caller's chatbots' widget (replacing the old one): `{secret}`, shown once. */
export async function createWidgetSecret(dependencies: Dependencies, caller: Caller, chatbotId: string): Promise<{ secret: string }> {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  return { secret: (await rotateWidgetSecret(dependencies, chatbot.id)).secret };
}

/** Soft-deletes one of the caller's chatbots. */
export async function removeChatbot(dependencies: Dependencies, caller: Caller, chatbotId: string): Promise<void> {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  await deleteChatbot(dependencies, chatbot.id);
}

/** The documents of one of the caller's chatbots, most recently updated first. */
export async function listDocuments(dependencies: Dependencies, caller: Caller, chatbotId: string, page: PageRequest) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  const size = pageSize(page);
  const after = decodeCursor("documents", page.cursor, ["number", "string"]);
  const rows = await dependencies.searchIndex.listDocuments(chatbot.id, { limit: size + 1, after: after && { at: after[0] as number, id: after[1] as string } });
  return pageOf(rows, size, toDocumentView, (document) => encodeCursor("documents", [document.updatedAt, document.id]));
}

/** Queues knowledge for one of the caller's chatbots: 202 with the ingestion. */
export async function addKnowledge(dependencies: Dependencies, caller: Caller, chatbotId: string, request: KnowledgeRequest) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  const ingestion = await queueIngestion(dependencies, chatbot, checkKnowledgeRequest(request, dependencies.knowledgeSources));
  dependencies.wakeIngestions?.();
  return toIngestionView(ingestion);
}

/** One of the caller's ingestions. */
export async function getIngestion(dependencies: Dependencies, caller: Caller, ingestionId: string) {
  const ingestion = isUuid(ingestionId) ? await dependencies.storage.getIngestion(ingestionId.toLowerCase()) : null;
  if (!ingestion || ingestion.userId !== caller.user.id) throw notFound("Ingestion");
  return toIngestionView(ingestion);
}

/** Removes a document and its chunks from one of the caller's chatbots. */
export async function removeDocument(dependencies: Dependencies, caller: Caller, chatbotId: string, documentId: string): Promise<void> {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  const document = isUuid(documentId) ? await dependencies.searchIndex.getDocument(chatbot.id, { id: documentId.toLowerCase() }) : null;
  if (!document) throw notFound("Document");
  await dependencies.searchIndex.deleteDocument(chatbot.id, document.source);
}

/** What retrieval would give the model for a question: the fused chunks with each arm's rank. */
export async function searchKnowledge(dependencies: Dependencies, caller: Caller, chatbotId: string, input: { query: string; limit?: number }) {
  const chatbot = await findOwnedChatbot(dependencies, caller.user, chatbotId);
  if (input.query.trim() === "") throw invalidRequest("query: must be a non-empty string");
  const limit = input.limit ?? dependencies.settings.retrieval.maxChunks;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_SEARCH_RESULTS) throw invalidRequest(`limit: must be a whole number from 1 to ${MAX_SEARCH_RESULTS}`);
  const { retrieval } = dependencies.settings;
  const hits = await retrieveCandidates({
    searchIndex: dependencies.searchIndex,
    embedder: dependencies.embedder,
    chatbotId: chatbot.id,
    query: input.query,
    fusion: retrieval.fusion,
    keywordK: Math.max(retrieval.keywordCandidates, limit),
    vectorK: Math.max(retrieval.vectorCandidates, limit),
  });
  const documents = new Map<string, string | null>();
  const data = [];
  for (const hit of hits.slice(0, limit)) {
    if (!documents.has(hit.source)) documents.set(hit.source, (await dependencies.searchIndex.getDocument(chatbot.id, { source: hit.source }))?.id ?? null);
    data.push({
      document_id: documents.get(hit.source)!,
      title: hit.title,
      source: hit.source,
      text: hit.text,
      score: hit.fusedScore,
      keyword_rank: hit.keywordRank,
      vector_rank: hit.vectorRank,
    });
  }
  return { data };
}
