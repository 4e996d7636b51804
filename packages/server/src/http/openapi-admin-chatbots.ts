import { MAX_SEARCH_RESULTS } from "@parley/core";
import { checkCreateChatbot, checkSearch, checkUpdateChatbot } from "./admin-schemas.js";
import { adminOperation, detailOf, missing, PAGE_ERRORS } from "./openapi-admin-components.js";

// The operator API's chatbot, knowledge and retrieval-test routes (docs/design.md §9), for docs/openapi.json.

const CHATBOT = missing("Chatbot");
const chatbotBody = { name: "Kettle Help", provider: "openai", model: "gpt-4o-mini", system_prompt: "You help owners of the Kettlebird One kettle." };

/** The chatbot routes of the operator API. */
export const chatbotPaths = {
  "/v1/admin/chatbots": {
    get: adminOperation({
      operationId: "listAdminChatbots",
      summary: "List the caller's chatbots (admin view)",
      description: "The caller's chatbots in the admin view, newest first, paused ones included, deleted ones left out.",
      tag: "admin: chatbots",
      parameters: ["Limit", "Cursor"],
      success: ["200", "A page of chatbots.", "AdminChatbotPage"],
      invalid: PAGE_ERRORS,
    }),
    post: adminOperation({
      operationId: "createChatbot",
      summary: "Create a chatbot",
      description: "Creates an active chatbot for the caller. The slug is derived from the name once, at creation. Without `system_prompt` or `fallback_message` the defaults apply.",
      tag: "admin: chatbots",
      body: ["CreateChatbotRequest", chatbotBody],
      success: ["201", "The new chatbot.", "AdminChatbot"],
      invalid: [
        ["missingName", "A required field is missing", detailOf(() => checkCreateChatbot({ provider: "openai", model: "m" }))],
        ["badProvider", "A provider other than the three", detailOf(() => checkCreateChatbot({ ...chatbotBody, provider: "cohere" }))],
        ["blankName", "A required text that is blank once trimmed", "name: must be a non-empty string"],
        ["longName", "A text over its limit", detailOf(() => checkCreateChatbot({ ...chatbotBody, name: "n".repeat(201) }))],
      ],
    }),
  },
  "/v1/admin/chatbots/{chatbot_id}": {
    get: adminOperation({
      operationId: "getAdminChatbot",
      summary: "Read one chatbot (admin view)",
      description: "The spec's detail form plus `model`, `updated_at`, `documents` and `chunks`.",
      tag: "admin: chatbots",
      parameters: ["ChatbotId"],
      success: ["200", "The chatbot.", "AdminChatbot"],
      notFound: [CHATBOT],
    }),
    patch: adminOperation({
      operationId: "updateChatbot",
      summary: "Change a chatbot's settings, pause or resume it",
      description: "Any of the settings, at least one; the others stay. `is_active: false` pauses the chatbot (chat answers 403), `true` resumes it. The slug never changes.",
      tag: "admin: chatbots",
      parameters: ["ChatbotId"],
      body: ["UpdateChatbotRequest", { is_active: false }],
      success: ["200", "The chatbot as changed.", "AdminChatbot"],
      notFound: [CHATBOT],
      invalid: [
        ["empty", "No field to change", detailOf(() => checkUpdateChatbot({}))],
        ["blankName", "A required text emptied", "name: must be a non-empty string"],
        ["badProvider", "A provider other than the three", detailOf(() => checkUpdateChatbot({ provider: "cohere" }))],
        ["badFlag", "`is_active` not a boolean", detailOf(() => checkUpdateChatbot({ is_active: "no" }))],
      ],
    }),
    delete: adminOperation({
      operationId: "deleteChatbot",
      summary: "Delete a chatbot",
      description: "A soft delete: the chatbot disappears from every route (404), its conversations with it; nothing is erased from the database.",
      tag: "admin: chatbots",
      parameters: ["ChatbotId"],
      success: ["204", "Deleted; no body."],
      notFound: [CHATBOT],
    }),
  },
  "/v1/admin/chatbots/{chatbot_id}/documents": {
    get: adminOperation({
      operationId: "listDocuments",
      summary: "List a chatbot's documents",
      description: "The documents of the chatbot's knowledge, most recently updated first.",
      tag: "admin: knowledge",
      parameters: ["ChatbotId", "Limit", "Cursor"],
      success: ["200", "A page of documents.", "DocumentPage"],
      notFound: [CHATBOT],
      invalid: PAGE_ERRORS,
    }),
    post: withUploads(
      adminOperation({
        operationId: "addDocument",
        summary: "Add knowledge: files, a URL or a text document",
        description:
          "Queues an ingestion and answers 202 at once; `GET /v1/admin/ingestions/{ingestion_id}` tells its progress. Three forms: `multipart/form-data` with one or more `files` (PDF, DOCX, HTML, Markdown, text, typed by content; each file's name is its source), streamed to disk, each at most `PARLEY_MAX_UPLOAD_BYTES` (25 MiB; past it 413 `Each uploaded file must not exceed 25 MiB.` and the rest of the body is not read), at most 100, and at most `PARLEY_MAX_UPLOAD_REQUEST_BYTES` together (100 MiB; past it 413 `An upload's files together must not exceed 100 MiB.`); JSON `url` with `crawl` (`page`, `sitemap`, `site`) and `max_pages` (default 50), fetched from public addresses only unless `PARLEY_ALLOW_PRIVATE_URLS=true`; or JSON `title` and `text`. A document from the same source is replaced. A source that cannot be read is one `{source, detail}` of the ingestion's `errors` (docs/operations.md, Knowledge sources).",
        tag: "admin: knowledge",
        parameters: ["ChatbotId"],
        body: ["AddDocumentRequest", { title: "Warranty", text: "Every Kettlebird One has a 2-year limited warranty." }],
        success: ["202", "The ingestion, queued.", "Ingestion"],
        notFound: [CHATBOT],
        invalid: [
          ["neither", "Neither title and text, nor url alone", "body: must hold either title and text, or url"],
          ["badCrawl", "An unknown crawl mode", "crawl: must be one of page, sitemap, site"],
          ["blankText", "A blank title or text", "text: must be a non-empty string"],
          ["noFile", "A form without a file", "files: the form must carry at least one file."],
        ],
      }),
    ),
  },
  "/v1/admin/chatbots/{chatbot_id}/documents/{document_id}": {
    delete: adminOperation({
      operationId: "deleteDocument",
      summary: "Remove a document",
      description: "Removes the document and its chunks from the chatbot's knowledge at once.",
      tag: "admin: knowledge",
      parameters: ["ChatbotId", "DocumentId"],
      success: ["204", "Removed; no body."],
      notFound: [CHATBOT, missing("Document")],
    }),
  },
  "/v1/admin/ingestions/{ingestion_id}": {
    get: adminOperation({
      operationId: "getIngestion",
      summary: "An ingestion's progress and outcome",
      description: "`queued`, `running`, then `succeeded` or `failed`; `errors` holds one `{source, detail}` per document that could not be read.",
      tag: "admin: knowledge",
      parameters: ["IngestionId"],
      success: ["200", "The ingestion.", "Ingestion"],
      notFound: [missing("Ingestion")],
    }),
  },
  "/v1/admin/chatbots/{chatbot_id}/search": {
    post: adminOperation({
      operationId: "searchKnowledge",
      summary: "Test retrieval",
      description: `What retrieval would give the model for this question: the fused chunks, best first, each with its document, its fused score and its rank in each arm (keyword and vector; null when that arm did not find it). \`limit\` 1–${MAX_SEARCH_RESULTS}, default the number of chunks a prompt gets. Nothing is stored or counted.`,
      tag: "admin: knowledge",
      parameters: ["ChatbotId"],
      body: ["SearchRequest", { query: "How long is the warranty?", limit: 3 }],
      success: ["200", "The chunks.", "SearchResult"],
      notFound: [CHATBOT],
      invalid: [
        ["missingQuery", "No query", detailOf(() => checkSearch({}))],
        ["blankQuery", "A blank query", "query: must be a non-empty string"],
        ["badLimit", "A limit out of range", detailOf(() => checkSearch({ query: "q", limit: MAX_SEARCH_RESULTS + 1 }))],
      ],
    }),
  },
};

/** The documents route also takes `multipart/form-data` files (docs/design.md §12). */
function withUploads<T extends { requestBody?: { content: Record<string, unknown> } }>(operation: T): T {
  const upload = {
    schema: {
      type: "object",
      required: ["files"],
      properties: { files: { type: "array", items: { type: "string", format: "binary" }, description: "One document per file; its name is the source." } },
    },
  };
  return { ...operation, requestBody: { ...operation.requestBody, content: { ...operation.requestBody?.content, "multipart/form-data": upload } } };
}
