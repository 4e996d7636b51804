import type { KnowledgeRequest } from "@parley/core";
import { mkdir, rm } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { checkAddDocuments, checkCreateChatbot, checkCreateKey, checkCreateWebhook, checkReply, checkSearch, checkUpdateChatbot } from "./admin-schemas.js";
import { HttpError } from "./http-error.js";
import { readJsonBody } from "./read-json-body.js";
import { readUploadedFiles } from "./read-uploaded-files.js";
import type { Route, RouteContext } from "./routes.js";

const ID = "([^/]+)";
const ok = (body: unknown) => ({ status: 200, body });
const created = (body: unknown) => ({ status: 201, body });
const noContent = { status: 204, body: null };

/** The query values a list takes (`limit`, `cursor`) plus the named filters; the first of repeated names. */
function queryOf(context: Pick<RouteContext, "query">, ...names: string[]): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of ["limit", "cursor", ...names]) values[name] = context.query.get(name) ?? undefined;
  return values;
}

/** What a JSON body of the documents route asks to read: text, or a URL (files come as multipart). */
function knowledgeRequestOf(body: ReturnType<typeof checkAddDocuments>): KnowledgeRequest {
  if (body.url !== undefined && body.text === undefined && body.title === undefined) {
    return { kind: "url", url: body.url, crawl: body.crawl ?? "page", maxPages: body.max_pages ?? 50 };
  }
  if (body.text !== undefined && body.title !== undefined && body.url === undefined) return { kind: "text", title: body.title, text: body.text };
  throw new HttpError(422, "body: must hold either title and text, or url");
}

function isMultipart(request: IncomingMessage): boolean {
  return (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() === "multipart/form-data";
}

/**
 * The operator API (docs/design.md §9): each route a thin door onto one `parley.operator`
 * call. Admin routes require an admin-scoped key, checked before the body is read.
 */
export const ADMIN_ROUTES: Route[] = [
  {
    template: "/v1/admin/chatbots",
    methods: {
      GET: async ({ parley, caller, ...context }) => ok(await parley.operator.listChatbots(caller, queryOf(context))),
      POST: async ({ parley, caller, request }) => {
        const body = checkCreateChatbot(await readJsonBody(request));
        return created(
          await parley.operator.createChatbot(caller, {
            name: body.name,
            provider: body.provider,
            model: body.model,
            systemPrompt: body.system_prompt,
            fallbackMessage: body.fallback_message,
          }),
        );
      },
    },
  },
  {
    template: `/v1/admin/chatbots/${ID}`,
    methods: {
      GET: async ({ parley, caller, params }) => ok(await parley.operator.getChatbot(caller, params[0]!)),
      PATCH: async ({ parley, caller, request, params }) => {
        const body = checkUpdateChatbot(await readJsonBody(request));
        return ok(
          await parley.operator.updateChatbot(caller, params[0]!, {
            name: body.name,
            provider: body.provider,
            model: body.model,
            systemPrompt: body.system_prompt,
            fallbackMessage: body.fallback_message,
            isActive: body.is_active,
          }),
        );
      },
      DELETE: async ({ parley, caller, params }) => {
        await parley.operator.deleteChatbot(caller, params[0]!);
        return noContent;
      },
    },
  },
  {
    template: `/v1/admin/chatbots/${ID}/documents`,
    methods: {
      GET: async ({ parley, caller, params, ...context }) => ok(await parley.operator.listDocuments(caller, params[0]!, queryOf(context))),
      POST: async ({ parley, caller, request, params, uploads }) => {
        if (!isMultipart(request)) {
          const body = checkAddDocuments(await readJsonBody(request));
          return { status: 202, body: await parley.operator.addKnowledge(caller, params[0]!, knowledgeRequestOf(body)) };
        }
        // A missing or foreign chatbot is 404 before a byte of the upload is read.
        await parley.operator.getChatbot(caller, params[0]!);
        // Files are streamed to disk first; the ingestion reads them, then removes them.
        await mkdir(uploads.folder, { recursive: true, mode: 0o700 });
        const { files, folder } = await readUploadedFiles(request, { maxFileBytes: uploads.maxFileBytes, maxRequestBytes: uploads.maxRequestBytes, directory: uploads.folder });
        try {
          const ingestion = await parley.operator.addKnowledge(caller, params[0]!, { kind: "files", files: files.map(({ name, path }) => ({ name, path })) });
          return { status: 202, body: ingestion };
        } catch (error) {
          await rm(folder, { recursive: true, force: true });
          throw error;
        }
      },
    },
  },
  {
    template: `/v1/admin/chatbots/${ID}/documents/${ID}`,
    methods: {
      DELETE: async ({ parley, caller, params }) => {
        await parley.operator.deleteDocument(caller, params[0]!, params[1]!);
        return noContent;
      },
    },
  },
  {
    template: `/v1/admin/chatbots/${ID}/search`,
    methods: {
      POST: async ({ parley, caller, request, params }) => ok(await parley.operator.search(caller, params[0]!, checkSearch(await readJsonBody(request)))),
    },
  },
  { template: `/v1/admin/ingestions/${ID}`, methods: { GET: async ({ parley, caller, params }) => ok(await parley.operator.getIngestion(caller, params[0]!)) } },
  {
    template: "/v1/admin/conversations",
    methods: { GET: async ({ parley, caller, ...context }) => ok(await parley.operator.listConversations(caller, queryOf(context, "chatbot_id", "status"))) },
  },
  {
    template: `/v1/admin/conversations/${ID}`,
    methods: {
      GET: async ({ parley, caller, params, ...context }) => ok(await parley.operator.getConversation(caller, params[0]!, { after: context.query.get("after") ?? undefined })),
    },
  },
  {
    template: `/v1/admin/conversations/${ID}/takeover`,
    methods: {
      POST: async ({ parley, caller, params }) => ok(await parley.operator.startTakeover(caller, params[0]!)),
      DELETE: async ({ parley, caller, params }) => ok(await parley.operator.endTakeover(caller, params[0]!)),
    },
  },
  {
    template: `/v1/admin/conversations/${ID}/messages`,
    methods: { POST: async ({ parley, caller, request, params }) => created(await parley.operator.reply(caller, params[0]!, checkReply(await readJsonBody(request)))) },
  },
  {
    template: "/v1/admin/keys",
    methods: {
      GET: async ({ parley, caller, ...context }) => ok(await parley.operator.listKeys(caller, queryOf(context))),
      POST: async ({ parley, caller, request }) => created(await parley.operator.createKey(caller, checkCreateKey(await readJsonBody(request)))),
    },
  },
  {
    template: `/v1/admin/keys/${ID}`,
    methods: {
      DELETE: async ({ parley, caller, params }) => {
        await parley.operator.revokeKey(caller, params[0]!);
        return noContent;
      },
    },
  },
  {
    template: "/v1/admin/webhooks",
    methods: {
      GET: async ({ parley, caller, ...context }) => ok(await parley.operator.listWebhooks(caller, queryOf(context))),
      POST: async ({ parley, caller, request }) => created(await parley.operator.createWebhook(caller, checkCreateWebhook(await readJsonBody(request)))),
    },
  },
  {
    template: `/v1/admin/webhooks/${ID}`,
    methods: {
      DELETE: async ({ parley, caller, params }) => {
        await parley.operator.deleteWebhook(caller, params[0]!);
        return noContent;
      },
    },
  },
  {
    template: "/v1/admin/webhook-deliveries",
    methods: { GET: async ({ parley, caller, ...context }) => ok(await parley.operator.listDeliveries(caller, queryOf(context, "status"))) },
  },
  {
    template: `/v1/admin/webhook-deliveries/${ID}/retry`,
    methods: { POST: async ({ parley, caller, params }) => ok(await parley.operator.retryDelivery(caller, params[0]!)) },
  },
  { template: "/v1/admin/usage", methods: { GET: async ({ parley, caller }) => ok(await parley.operator.getUsage(caller)) } },
];
