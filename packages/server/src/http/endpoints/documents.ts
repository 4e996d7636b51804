import { MAX_MESSAGE_CHARS, MAX_SEARCH_RESULTS, type Caller, type KnowledgeRequest } from "@parley/core";
import type { FromSchema } from "json-schema-to-ts";
import { randomUUID } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { defineEndpoint, key, noContent, ok, type EndpointContext, type Tag } from "../endpoint.js";
import { HttpError } from "../http-error.js";
import { isMultipart } from "../read-json-body.js";
import { readUploadedFiles } from "../read-uploaded-files.js";
import { missing, PAGE_ERRORS } from "../openapi-components.js";

// The operator API's knowledge routes: documents, ingestions and the retrieval test (docs/design.md §9, §12).

const TAG: Tag = { name: "admin: knowledge", description: "Documents, ingestions and the retrieval test (admin keys)" };

/** `POST /v1/admin/chatbots/{id}/documents` with JSON: a text document, or a URL to read. */
const addDocumentSchema = {
  type: "object",
  properties: {
    title: { type: "string", minLength: 1, maxLength: 500, description: "The document's title, which is also its source: adding the same title again replaces it." },
    text: { type: "string", minLength: 1, maxLength: 1_000_000, description: "The document's text." },
    url: { type: "string", minLength: 1, maxLength: 2048, description: "A public http(s) URL to read." },
    crawl: { type: "string", enum: ["page", "sitemap", "site"], description: "`page` (default): the URL alone; `sitemap`: every page it lists; `site`: same-site links, breadth-first." },
    max_pages: { type: "integer", minimum: 1, maximum: 1000, description: "Pages read at most (default 50)." },
  },
} as const;

const uploadSchema = {
  type: "object",
  required: ["files"],
  properties: { files: { type: "array", items: { type: "string", format: "binary" }, description: "One document per file; its name is the source." } },
};

/** What a JSON body of the documents route asks to read: text, or a URL (files come as multipart). */
function knowledgeRequestOf(body: FromSchema<typeof addDocumentSchema>): KnowledgeRequest {
  if (body.url !== undefined && body.text === undefined && body.title === undefined) {
    return { kind: "url", url: body.url, crawl: body.crawl ?? "page", maxPages: body.max_pages ?? 50 };
  }
  if (body.text !== undefined && body.title !== undefined && body.url === undefined) return { kind: "text", title: body.title, text: body.text };
  throw new HttpError(422, "body: must hold either title and text, or url");
}

/**
 * Files are streamed to a temporary folder (never held whole in memory while the limits are
 * checked), then stored where every process can read them; the ingestion removes them.
 */
async function addUploadedFiles({ parley, caller, request, uploads }: EndpointContext<string, unknown, Caller>, chatbotId: string) {
  // A missing or foreign chatbot is 404 before a byte of the upload is read.
  await parley.operator.getChatbot(caller, chatbotId);
  const { files, folder } = await readUploadedFiles(request, { maxFileBytes: uploads.maxFileBytes, maxRequestBytes: uploads.maxRequestBytes });
  const stored: { name: string; upload: string }[] = [];
  try {
    for (const file of files) {
      const upload = randomUUID();
      await uploads.store.save({ id: upload, chatbotId, name: file.name, content: await readFile(file.path), at: Date.now() * 1000 });
      stored.push({ name: file.name, upload });
    }
    return await parley.operator.addKnowledge(caller, chatbotId, { kind: "files", files: stored });
  } catch (error) {
    await uploads.store.remove(stored.map((file) => file.upload)).catch(() => {});
    throw error;
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

const CHATBOT = missing("Chatbot");

export const listDocuments = defineEndpoint({
  method: "GET",
  path: "/v1/admin/chatbots/{chatbot_id}/documents",
  operationId: "listDocuments",
  summary: "List a chatbot's documents",
  description: "The documents of the chatbot's knowledge, most recently updated first.",
  tag: TAG,
  access: key("admin"),
  parameters: ["Limit", "Cursor"],
  success: { status: 200, description: "A page of documents.", schema: "DocumentPage" },
  notFound: [CHATBOT],
  invalid: PAGE_ERRORS,
  handle: async ({ parley, caller, params, query }) => ok(await parley.operator.listDocuments(caller, params.chatbot_id, query)),
});

export const addDocument = defineEndpoint({
  method: "POST",
  path: "/v1/admin/chatbots/{chatbot_id}/documents",
  operationId: "addDocument",
  summary: "Add knowledge: files, a URL or a text document",
  description:
    "Queues an ingestion and answers 202 at once; `GET /v1/admin/ingestions/{ingestion_id}` tells its progress. Three forms: `multipart/form-data` with one or more `files` (PDF, DOCX, HTML, Markdown, text, typed by content; each file's name is its source), streamed to disk, each at most `PARLEY_MAX_UPLOAD_BYTES` (25 MiB; past it 413 `Each uploaded file must not exceed 25 MiB.` and the rest of the body is not read), at most 100, and at most `PARLEY_MAX_UPLOAD_REQUEST_BYTES` together (100 MiB; past it 413 `An upload's files together must not exceed 100 MiB.`); JSON `url` with `crawl` (`page`, `sitemap`, `site`) and `max_pages` (default 50), fetched from public addresses only unless `PARLEY_ALLOW_PRIVATE_URLS=true`; or JSON `title` and `text`. A document from the same source is replaced. A source that cannot be read is one `{source, detail}` of the ingestion's `errors` (docs/operations.md, Knowledge sources).",
  tag: TAG,
  access: key("admin"),
  body: {
    name: "AddDocumentRequest",
    schema: addDocumentSchema,
    examples: { example: { summary: "A body", value: { title: "Warranty", text: "Every Kettlebird One has a 2-year limited warranty." } } },
    uploads: uploadSchema,
  },
  success: { status: 202, description: "The ingestion, queued.", schema: "Ingestion" },
  notFound: [CHATBOT],
  invalid: [
    ["neither", "Neither title and text, nor url alone", "body: must hold either title and text, or url"],
    ["badCrawl", "An unknown crawl mode", { refused: { url: "https://example.com/faq", crawl: "deep" } }],
    ["blankText", "A blank title or text", "text: must be a non-empty string"],
    ["noFile", "A form without a file", "files: the form must carry at least one file."],
  ],
  async handle(context) {
    if (isMultipart(context.request)) return { status: 202, body: await addUploadedFiles(context, context.params.chatbot_id) };
    const { parley, caller, params, body } = context;
    return { status: 202, body: await parley.operator.addKnowledge(caller, params.chatbot_id, knowledgeRequestOf(body)) };
  },
});

export const deleteDocument = defineEndpoint({
  method: "DELETE",
  path: "/v1/admin/chatbots/{chatbot_id}/documents/{document_id}",
  operationId: "deleteDocument",
  summary: "Remove a document",
  description: "Removes the document and its chunks from the chatbot's knowledge at once.",
  tag: TAG,
  access: key("admin"),
  success: { status: 204, description: "Removed; no body." },
  notFound: [CHATBOT, missing("Document")],
  handle: ({ parley, caller, params }) => parley.operator.deleteDocument(caller, params.chatbot_id, params.document_id).then(noContent),
});

export const getIngestion = defineEndpoint({
  method: "GET",
  path: "/v1/admin/ingestions/{ingestion_id}",
  operationId: "getIngestion",
  summary: "An ingestion's progress and outcome",
  description: "`queued`, `running`, then `succeeded` or `failed`; `errors` holds one `{source, detail}` per document that could not be read.",
  tag: TAG,
  access: key("admin"),
  success: { status: 200, description: "The ingestion.", schema: "Ingestion" },
  notFound: [missing("Ingestion")],
  handle: async ({ parley, caller, params }) => ok(await parley.operator.getIngestion(caller, params.ingestion_id)),
});

export const searchKnowledge = defineEndpoint({
  method: "POST",
  path: "/v1/admin/chatbots/{chatbot_id}/search",
  operationId: "searchKnowledge",
  summary: "Test retrieval",
  description: `What retrieval would give the model for this question: the fused chunks, best first, each with its document, its fused score and its rank in each arm (keyword and vector; null when that arm did not find it). \`limit\` 1–${MAX_SEARCH_RESULTS}, default the number of chunks a prompt gets. Nothing is stored or counted.`,
  tag: TAG,
  access: key("admin"),
  body: {
    name: "SearchRequest",
    schema: {
      type: "object",
      required: ["query"],
      properties: {
        query: { type: "string", minLength: 1, maxLength: MAX_MESSAGE_CHARS, description: "A question, as a visitor would ask it." },
        limit: { type: "integer", minimum: 1, maximum: MAX_SEARCH_RESULTS, description: "Chunks returned at most (default: as many as the prompt gets, 5)." },
      },
    },
    examples: { example: { summary: "A body", value: { query: "How long is the warranty?", limit: 3 } } },
  },
  success: { status: 200, description: "The chunks.", schema: "SearchResult" },
  notFound: [CHATBOT],
  invalid: [
    ["missingQuery", "No query", { refused: {} }],
    ["blankQuery", "A blank query", "query: must be a non-empty string"],
    ["badLimit", "A limit out of range", { refused: { query: "q", limit: MAX_SEARCH_RESULTS + 1 } }],
  ],
  handle: async ({ parley, caller, params, body }) => ok(await parley.operator.search(caller, params.chatbot_id, body)),
});
