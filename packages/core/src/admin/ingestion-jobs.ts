import type { Chatbot } from "../domain/chatbot.js";
import type { Ingestion, IngestionError } from "../domain/ingestion.js";
import type { Dependencies } from "../dependencies.js";
import { invalidRequest, isParleyError } from "../errors.js";
import type { KnowledgeItem, KnowledgeRequest } from "../domain/knowledge.js";
import type { KnowledgeSources } from "../ports/knowledge-sources.js";
import { millisToMicros } from "../support/time.js";
import { ingestDocuments } from "./bulk-ingestion.js";

/** How long a runner holds an ingestion without news before another may take it up. */
export const INGESTION_LEASE_MS = 60_000;
/**
 * Runs an ingestion gets before it is given up: one whose runner keeps dying on it (a
 * document that takes the process down, say) fails with its reason instead of coming back forever.
 */
export const INGESTION_MAX_RUNS = 3;
const MAX_TEXT_CHARS = 1_000_000;
const MAX_TITLE_CHARS = 500;

type JobDependencies = Pick<Dependencies, "storage" | "searchIndex" | "embedder" | "ids" | "clock">;

/** Checks a request to add knowledge; text is stored with the ingestion, files and URLs are read later. */
export function checkKnowledgeRequest(request: KnowledgeRequest, sources: KnowledgeSources | undefined): KnowledgeRequest {
  if (request.kind === "text") {
    const title = request.title.trim();
    if (title === "") throw invalidRequest("title: must be a non-empty string");
    if (title.length > MAX_TITLE_CHARS) throw invalidRequest(`title: must be at most ${MAX_TITLE_CHARS} characters`);
    if (request.text.trim() === "") throw invalidRequest("text: must be a non-empty string");
    if (request.text.length > MAX_TEXT_CHARS) throw invalidRequest(`text: must be at most ${MAX_TEXT_CHARS} characters`);
    return { kind: "text", title, text: request.text };
  }
  if (!sources) throw invalidRequest(`${request.kind === "url" ? "url" : "files"}: this server reads only text documents`);
  return request;
}

/** Queues an ingestion of the chatbot's knowledge; a runner reads it in the background. */
export async function queueIngestion(dependencies: JobDependencies, chatbot: Chatbot, request: KnowledgeRequest): Promise<Ingestion> {
  return dependencies.storage.createIngestion({
    id: dependencies.ids.uuid(),
    userId: chatbot.ownerId,
    chatbotId: chatbot.id,
    status: "queued",
    request,
    // Known up front for text and files; a URL's pages are counted as they are found.
    documentsTotal: request.kind === "text" ? 1 : request.kind === "files" ? request.files.length : null,
    documentsDone: 0,
    chunks: 0,
    errors: [],
    createdAt: dependencies.clock.now(),
    startedAt: null,
    finishedAt: null,
    leasedUntil: null,
    attempts: 0,
  });
}

/** The documents of a request: text as it was given, anything else through the sources adapter. */
async function* itemsOf(request: KnowledgeRequest, sources: KnowledgeSources | undefined, signal: AbortSignal): AsyncIterable<KnowledgeItem> {
  if (request.kind === "text") {
    yield { document: { source: request.title, title: request.title, text: request.text }, type: "text", bytes: Buffer.byteLength(request.text) };
    return;
  }
  if (!sources) {
    yield { source: request.kind === "url" ? request.url : "files", error: "This server cannot read files or URLs." };
    return;
  }
  yield* sources.read(request, { signal });
}

/**
 * Runs one claimed ingestion to its end: each document is indexed on its own (replacing an
 * earlier version of its source atomically), a document that fails is recorded and the rest go
 * on, and progress is written after each. It fails when every document failed. Resolves to
 * null when the run was aborted (the process is stopping: its lease ends and a later run
 * takes the ingestion up again).
 */
export async function runIngestion(
  dependencies: JobDependencies,
  ingestion: Ingestion,
  options: { sources?: KnowledgeSources; signal: AbortSignal },
): Promise<Ingestion | null> {
  const { storage, clock } = dependencies;
  const total = ingestion.request.kind === "text" ? 1 : (options.sources?.estimate(ingestion.request) ?? null);
  const progress = { documentsTotal: total, documentsDone: 0, chunks: 0, errors: [] as IngestionError[] };
  const save = (finished?: { status: "succeeded" | "failed"; at: number }) =>
    storage.updateIngestion(ingestion.id, {
      startedAt: ingestion.startedAt!,
      ...progress,
      errors: [...progress.errors],
      leaseUntil: clock.now() + millisToMicros(INGESTION_LEASE_MS),
      finished,
    });
  if (ingestion.attempts > INGESTION_MAX_RUNS) {
    const detail = `Reading stopped ${INGESTION_MAX_RUNS} times before it finished (its server stopped or lost it each time); the ingestion is given up.`;
    progress.errors.push({ source: sourceOf(ingestion.request), detail });
    return save({ status: "failed", at: clock.now() });
  }
  const chatbot = await storage.getChatbot(ingestion.chatbotId);
  if (!chatbot || chatbot.deletedAt !== null) {
    progress.errors.push({ source: sourceOf(ingestion.request), detail: "Chatbot not found." });
    return save({ status: "failed", at: clock.now() });
  }
  await save();
  // A long document (a slow page, a big PDF to embed) must not lose the lease halfway.
  const heartbeat = setInterval(() => void save().catch(() => undefined), INGESTION_LEASE_MS / 3);
  try {
    for await (const item of itemsOf(ingestion.request, options.sources, options.signal)) {
      if (options.signal.aborted) return null;
      await indexItem(dependencies, chatbot.id, item, progress);
      progress.documentsDone += 1;
      if (progress.documentsTotal !== null && progress.documentsDone > progress.documentsTotal) progress.documentsTotal = progress.documentsDone;
      await save();
    }
  } finally {
    clearInterval(heartbeat);
  }
  if (options.signal.aborted) return null;
  progress.documentsTotal = progress.documentsDone;
  if (progress.documentsDone === 0) progress.errors.push({ source: sourceOf(ingestion.request), detail: "No document was found." });
  const failed = progress.errors.length >= Math.max(1, progress.documentsDone);
  return save({ status: failed ? "failed" : "succeeded", at: clock.now() });
}

/** Indexes one item (or records why it could not be read or indexed). */
async function indexItem(dependencies: JobDependencies, chatbotId: string, item: KnowledgeItem, progress: { chunks: number; errors: IngestionError[] }) {
  if ("error" in item) {
    progress.errors.push({ source: item.source, detail: item.error });
    return;
  }
  try {
    progress.chunks += (await ingestDocuments(dependencies, chatbotId, [item.document])).chunks;
  } catch (error) {
    progress.errors.push({ source: item.document.source, detail: isParleyError(error) ? error.detail : "The document could not be indexed." });
  }
}

function sourceOf(request: KnowledgeRequest): string {
  return request.kind === "url" ? request.url : request.kind === "text" ? request.title : request.files.map((file) => file.name).join(", ");
}
