import { requireAdminScope, type Caller, type Parley } from "@parley/core";
import type { IncomingMessage } from "node:http";
import { ADMIN_ROUTES } from "./admin-routes.js";
import { readJsonBody } from "./read-json-body.js";
import { checkChatRequest } from "./schemas.js";

/** What a route handler returns: a status and a JSON body (none for 204). */
export interface RouteResult {
  status: number;
  body: unknown;
}

/** What a handler gets once the caller is authenticated and admitted. */
export interface RouteContext {
  parley: Parley;
  caller: Caller;
  request: IncomingMessage;
  /** Path parameters, percent-decoded, one segment each. */
  params: string[];
  query: URLSearchParams;
  uploads: Uploads;
}

/** Where uploaded files are written, the largest file taken (`PARLEY_MAX_UPLOAD_BYTES`) and the largest upload (`PARLEY_MAX_UPLOAD_REQUEST_BYTES`). */
export interface Uploads {
  folder: string;
  maxFileBytes: number;
  /** All the files of one request together; default 100 MiB. */
  maxRequestBytes?: number;
}

/** A route's handler. */
export type RouteHandler = (context: RouteContext) => Promise<RouteResult>;

/** A path template (`([^/]+)` for each parameter) and its handlers by method. */
export interface Route {
  template: string;
  methods: Partial<Record<string, RouteHandler>>;
}

/** The three routes of the spec, and the session messages route for chat keys (docs/design.md §10). */
const SPEC_ROUTES: Route[] = [
  {
    template: "/v1/chatbots",
    methods: { GET: async ({ parley, caller }) => ({ status: 200, body: await parley.listChatbots(caller) }) },
  },
  {
    template: "/v1/chatbots/([^/]+)",
    methods: { GET: async ({ parley, caller, params }) => ({ status: 200, body: await parley.getChatbot(caller, params[0]!) }) },
  },
  {
    template: "/v1/chatbots/([^/]+)/chat",
    methods: {
      POST: async ({ parley, caller, request, params }) => {
        const body = await readJsonBody(request);
        checkChatRequest(body);
        const result = await parley.chat(caller, params[0]!, body);
        // A human agent has the conversation: accepted and stored, no reply generated.
        return result.humanTakeover ? { status: 202, body: { response: "" } } : { status: 200, body: { response: result.response } };
      },
    },
  },
  {
    template: "/v1/chatbots/([^/]+)/sessions/([^/]+)/messages",
    methods: {
      GET: async ({ parley, caller, params, query }) => ({
        status: 200,
        body: await parley.listSessionMessages(caller, params[0]!, params[1]!, { after: query.get("after") ?? undefined }),
      }),
    },
  },
];

/** The live events route; its stream handler is attached by the server, which owns the feed. */
export const EVENTS_TEMPLATE = "/v1/admin/events";

/** Every route the server answers (besides `/healthz` and the console), in match order. */
export const ROUTES: readonly Route[] = [...SPEC_ROUTES, { template: EVENTS_TEMPLATE, methods: {} }, ...ADMIN_ROUTES];

/**
 * Every method and path template the table answers with JSON, for tools that must cover all
 * routes (the fuzz tests): a route added to the table is included without more work.
 */
export const ROUTE_TEMPLATES: ReadonlyArray<{ method: string; path: string }> = ROUTES.flatMap((route) =>
  Object.keys(route.methods).map((method) => ({ method, path: route.template })),
);

const COMPILED = ROUTES.map((route) => ({ route, pattern: new RegExp(`^${route.template}$`), admin: route.template.startsWith("/v1/admin/") }));

/** The route for a path: its handler for the method, or the methods it allows; null when no route matches. */
export function matchRoute(method: string, path: string) {
  for (const { route, pattern, admin } of COMPILED) {
    const match = pattern.exec(path);
    if (!match) continue;
    const params = match.slice(1).map(decodeSegment);
    const allowed = route.template === EVENTS_TEMPLATE ? ["GET"] : Object.keys(route.methods);
    return { handler: route.methods[method], stream: route.template === EVENTS_TEMPLATE && method === "GET", allowed, params, admin };
  }
  return null;
}

/** The operator API's scope rule, before any body is read: a chat key gets 403 whatever it sent. */
export function checkScope(admin: boolean, caller: Caller): void {
  if (admin) requireAdminScope(caller);
}

/** A percent-decoded path segment; a malformed escape stays as it is (and will not be a valid id). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
