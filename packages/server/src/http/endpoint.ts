import type { ApiKeyScope, Caller, KeyedChatProgress, Parley, UploadStore, VisitorLimit, WidgetChatbot } from "@parley/core";
import type { ErrorObject } from "ajv";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ParameterName } from "./openapi-parameters.js";
import type { ViewName } from "./views.js";

// One declaration per endpoint (docs/architecture.md, "The HTTP layer"): everything the server
// and docs/openapi.json know about a route is here, as data, and the route matcher, the body
// validators, the body types and the OpenAPI operation are all derived from it.

/** The methods the API answers. */
export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * Who may call an endpoint, checked after the key is authenticated and admitted by its rate
 * limit, and before any body is read (docs/design.md §4, §9).
 *
 * - `key`: an API key whose scope is one of `scopes` (a key of another scope gets the core's
 *   403 for its scope). Giving a route to a new scope is one word in its `scopes`.
 * - `public`: no key at all (`/healthz`); no rate-limit headers.
 * - `visitor`: the chat widget's public routes (docs/design.md §14): no key; the chatbot must
 *   have its widget on (404), the browser's `Origin` must be the server's own or one of its
 *   allowed origins (403, CORS answers for those), `session` routes take a visitor token (401),
 *   and `limit` counts the client address (429).
 *
 * A route kind that authenticates otherwise is one more member of this union, one branch in
 * `handle` (create-request-handler.ts) and one in `accessResponses` (openapi-operation.ts).
 */
export type Access = KeyAccess | PublicAccess | VisitorAccess;
/**
 * API keys of some scopes. `inCore`: the handler's core operation authenticates the key, applies
 * its rate limit and reads the body (`EndpointContext.keyed`), reading the key with what it
 * checks next (the chat: docs/scaling.md, "Round trips of a chat"), with the same refusals in
 * the same order; `scopes` then only documents the route.
 */
export type KeyAccess = { kind: "key"; scopes: readonly ApiKeyScope[]; inCore?: boolean };
/** Anyone. */
export type PublicAccess = { kind: "public" };

/** A widget visitor: a session token when `session`, and one per-address limit. */
export type VisitorAccess = { kind: "visitor"; session: boolean; limit?: VisitorLimit };

/** Access for widget visitors (docs/design.md §14). */
export const visitor = (options: { session: boolean; limit?: VisitorLimit }): VisitorAccess => ({ kind: "visitor", ...options });

/** The caller of a `visitor` route: the chatbot (widget on, origin admitted), and the session of its token. */
export interface Visitor {
  widget: WidgetChatbot;
  /** The session the token names; empty on a route that takes no token. */
  sessionId: string;
  /** The client address the limits count. */
  address: string;
}

/** Answers `GET /v1/widget/{chatbot_id}/events` as a stream: the session's events; resolves when it has ended. */
export type VisitorEventStreamHandler = (context: { visitor: Visitor; ownerId: string; request: IncomingMessage; response: ServerResponse; headers: Record<string, string> }) => Promise<void>;

/** Access for API keys of these scopes. */
export const key = (...scopes: ApiKeyScope[]): KeyAccess => ({ kind: "key", scopes });

/** What the handler of an `inCore` key route hands to its core operation. */
export interface KeyedRequest {
  /** The bearer token, as sent (undefined when none was). */
  token: string | undefined;
  /** The body, read and validated as any route's (415, 413, 400, 422), or its refusal. */
  readBody: () => Promise<unknown>;
  /** Filled by the core as the request passes its checks: the caller, then the per-key limit's status. */
  progress: KeyedChatProgress;
}

/** Answers `GET /v1/admin/events` as a stream; resolves when the stream has ended. */
export type EventStreamHandler = (context: { caller: Caller; request: IncomingMessage; response: ServerResponse; headers: Record<string, string> }) => Promise<void>;

/** Where uploaded files wait for their ingestion (the shared database), and the largest file taken (`PARLEY_MAX_UPLOAD_BYTES`). */
export interface Uploads {
  store: UploadStore;
  maxFileBytes: number;
  /** All the files of one request together (`PARLEY_MAX_UPLOAD_REQUEST_BYTES`); default 100 MiB. */
  maxRequestBytes?: number;
}

/** A documented refusal: its example's name, its summary, and the exact `detail` (or a body the validator refuses, whose detail is quoted). */
export type Example = [name: string, summary: string, detail: string | { refused: unknown }];

/** Named example values of a request or response body. */
export type Examples = Record<string, { summary: string; value: unknown }>;

/** The path parameters of a template, by name: `/a/{id}` → `{ id: string }`. */
export type PathParams<Path extends string> = Path extends `${string}{${infer Name}}${infer Rest}` ? { [K in Name]: string } & PathParams<Rest> : unknown;

/** The request body of an endpoint: a JSON Schema, from which its validator, its type and its OpenAPI component come. */
export interface BodyDeclaration<Schema extends JSONSchema | undefined = JSONSchema> {
  /** Its component name in docs/openapi.json. */
  name: string;
  schema: Schema;
  description?: string;
  examples: Examples;
  /** Also takes `multipart/form-data` files, described by this schema: the handler reads them (its body is then undefined). */
  uploads?: object;
  /** Applied to the parsed JSON before validation (chat trims its message first). */
  prepare?: (body: unknown) => unknown;
  /** The 422 detail of a schema error; default `field: problem` (validators.ts). */
  describe?: (error: ErrorObject) => string;
}

/** What the handler of an endpoint gets, once the caller is admitted and the body validated. */
export interface EndpointContext<Path extends string = string, Body = unknown, Who = Caller | Visitor | undefined> {
  parley: Parley;
  /** The authenticated caller of a `key` endpoint, the {@link Visitor} of a `visitor` one; undefined on a `public` one. */
  caller: Who;
  request: IncomingMessage;
  response: ServerResponse;
  params: PathParams<Path>;
  /** The declared query parameters, the first value of each (undefined when absent). */
  query: Record<string, string | undefined>;
  body: Body;
  uploads: Uploads;
  /** The headers every answer carries (request id, RateLimit-*), for a handler that writes its own answer. */
  headers: Record<string, string>;
  /** The live events stream, when the server has a feed. */
  streamEvents: EventStreamHandler | undefined;
  /** A visitor session's live events, when the server has a feed. */
  streamVisitorEvents: VisitorEventStreamHandler | undefined;
  /** On an `inCore` key route: the key and body for the core (then `caller` and `body` are unset). */
  keyed: KeyedRequest | undefined;
}

/** A JSON answer (none for 204), or null when the handler wrote the response itself (a stream). */
export type Answer = { status: number; body: unknown } | null;

/** The success answer of an endpoint, for docs/openapi.json. */
export interface SuccessDeclaration {
  status: 200 | 201 | 202 | 204;
  description: string;
  /** The answer's schema, a view of views.ts; none for 204 or a stream. */
  schema?: ViewName;
  examples?: Examples;
  /** A `text/event-stream` answer: its description and example. */
  stream?: { description: string; examples: Examples };
}

/** A group of endpoints in docs/openapi.json, with its description. */
export interface Tag {
  name: string;
  description: string;
}

/** A documented refusal: `{detail}` with these example texts. */
export interface RefusalDeclaration {
  description: string;
  refusals: Example[];
}

/** One endpoint, as declared: `defineEndpoint` infers its body and path parameter types. */
export interface EndpointDeclaration<Path extends string, Schema extends JSONSchema | undefined, Who extends Access = Access> {
  method: Method;
  /** The path template, parameters as `{name}`. */
  path: Path;
  operationId: string;
  summary: string;
  description: string;
  tag: Tag;
  access: Who;
  /** Query and header parameters, by component name (openapi-components.ts `parameters`). */
  parameters?: ParameterName[];
  body?: BodyDeclaration<Schema>;
  success: SuccessDeclaration;
  /** A missing, foreign or malformed id: 404 with these texts. */
  notFound?: Example[];
  /** Invalid input the core refuses: 422 with these texts (body schema refusals add theirs). */
  invalid?: Example[];
  /** Documented answers written out, over the derived ones (openapi-operation.ts): a component name, a refusal or another success. */
  responses?: Partial<Record<number, string | RefusalDeclaration | Omit<SuccessDeclaration, "status">>>;
  /** A thin door onto one core operation. */
  handle(context: EndpointContext<Path, BodyOf<Schema>, Who extends KeyAccess ? Caller : Who extends VisitorAccess ? Visitor : undefined>): Promise<Answer>;
}

/** The handler's body type: the schema's type, or undefined for an endpoint without a body. */
type BodyOf<Schema> = Schema extends JSONSchema ? FromSchema<Schema> : undefined;

/** An endpoint with its types erased, as the route table holds it. */
export type Endpoint = Omit<EndpointDeclaration<string, JSONSchema | undefined>, "handle" | "body"> & {
  body?: BodyDeclaration;
  handle(context: EndpointContext<string, unknown>): Promise<Answer>;
};

/** Declares one endpoint; the body's type comes from its schema, the parameters' from the path. */
export function defineEndpoint<const Path extends string, const Schema extends JSONSchema | undefined = undefined, Who extends Access = KeyAccess>(
  declaration: EndpointDeclaration<Path, Schema, Who>,
): Endpoint {
  return declaration as unknown as Endpoint;
}

/** A 200 answer. */
export const ok = (body: unknown): Answer => ({ status: 200, body });
/** A 201 answer. */
export const created = (body: unknown): Answer => ({ status: 201, body });
const NO_CONTENT: Answer = { status: 204, body: null };
/** A 204 answer: no body (after a deletion, whatever it resolved to). */
export const noContent = (): Answer => NO_CONTENT;
