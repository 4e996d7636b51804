import type { Caller, Parley } from "@parley/core";
import type { IncomingMessage } from "node:http";
import { readJsonBody } from "./read-json-body.js";
import { checkChatRequest } from "./schemas.js";

/** What a route handler returns: a status and a JSON body. */
export interface RouteResult {
  status: number;
  body: unknown;
}

/** A route's handler, called once the caller is authenticated and admitted. */
export type RouteHandler = (context: { parley: Parley; caller: Caller; request: IncomingMessage; params: string[] }) => Promise<RouteResult>;

interface Route {
  /** The path with its parameters named in braces, as in the OpenAPI document: `/v1/chatbots/{chatbot_id}`. */
  template: string;
  methods: Partial<Record<string, RouteHandler>>;
}

/** The three routes of the spec. Path parameters are one segment each. */
const ROUTES: Route[] = [
  {
    template: "/v1/chatbots",
    methods: { GET: async ({ parley, caller }) => ({ status: 200, body: await parley.listChatbots(caller) }) },
  },
  {
    template: "/v1/chatbots/{chatbot_id}",
    methods: { GET: async ({ parley, caller, params }) => ({ status: 200, body: await parley.getChatbot(caller, params[0]!) }) },
  },
  {
    template: "/v1/chatbots/{chatbot_id}/chat",
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
];

/** A template's matcher: each `{name}` is one path segment, captured. */
function patternOf(template: string): RegExp {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[a-z_]+\}/g, "([^/]+)");
  return new RegExp(`^${escaped}$`);
}

const PATTERNS = ROUTES.map((route) => patternOf(route.template));

/**
 * Every method and path template the table serves, for tools that must cover all routes (the
 * fuzz tests, docs/benchmarks.md): a route added to the table is included without more work.
 */
export const ROUTE_TEMPLATES: ReadonlyArray<{ method: string; path: string }> = ROUTES.flatMap((route) =>
  Object.keys(route.methods).map((method) => ({ method, path: route.template })),
);

/** The route for a path: its handler for the method, or the methods it allows; null when no route matches. */
export function matchRoute(method: string, path: string): { handler: RouteHandler | undefined; allowed: string[]; params: string[] } | null {
  for (let index = 0; index < ROUTES.length; index += 1) {
    const route = ROUTES[index]!;
    const match = PATTERNS[index]!.exec(path);
    if (!match) continue;
    const params = match.slice(1).map(decodeSegment);
    return { handler: route.methods[method], allowed: Object.keys(route.methods), params };
  }
  return null;
}

/** A percent-decoded path segment; a malformed escape stays as it is (and will not be a valid id). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
